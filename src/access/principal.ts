import type { ApiTokenRecord, ProjectAccessEntry, Role, TokenPermission, UserRecord } from '../store/index.ts';

/** Who is making a request: a signed-in user (JWT session) or a project API token. */
export type Principal = UserPrincipal | TokenPrincipal;

export interface UserPrincipal {
  readonly kind: 'user';
  readonly id: string;
  readonly email: string;
  readonly role: Role;
  readonly projectAccess: readonly ProjectAccessEntry[] | null;
}

export interface TokenPrincipal {
  readonly kind: 'token';
  readonly id: string;
  readonly projectId: string;
  /** null: every dataset of the project. */
  readonly dataset: string | null;
  readonly permissions: readonly TokenPermission[];
}

/** A principal as limits count callers (per-caller rate limits and listener slots). */
export function callerKey(principal: Principal): string {
  return `${principal.kind}:${principal.id}`;
}

export function userPrincipal(user: UserRecord): UserPrincipal {
  return { kind: 'user', id: user.id, email: user.email, role: user.role, projectAccess: user.projectAccess };
}

export function tokenPrincipal(token: ApiTokenRecord): TokenPrincipal {
  return { kind: 'token', id: token.id, projectId: token.projectId, dataset: token.dataset, permissions: token.permissions };
}
