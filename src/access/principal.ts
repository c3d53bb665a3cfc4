import type { ProjectAccessEntry, Role, TokenPermission } from '../store/index.ts';

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
