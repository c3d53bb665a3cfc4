import { forbidden } from '../errors.ts';
import type { ProjectRecord, Role } from '../store/index.ts';
import type { Principal } from './principal.ts';

/**
 * Access rules in one place: who may read, write and administer what (README "Authentication and access").
 * viewer < editor < admin. A user's role in a project: admins everywhere; otherwise the
 * project_access entry for it; a user without project_access (null) has the global role in every
 * project, a user with a list only in the listed projects. API tokens act as viewer (read) or
 * editor (write) in their own project and dataset, never as admin.
 */
export const ROLE_LEVEL: Readonly<Record<Role, number>> = { viewer: 1, editor: 2, admin: 3 };

export function atLeast(role: Role | null, minimum: Role): boolean {
  return role !== null && ROLE_LEVEL[role] >= ROLE_LEVEL[minimum];
}

export function roleInProject(principal: Principal, project: Pick<ProjectRecord, 'id'>): Role | null {
  if (principal.kind === 'token') {
    if (principal.projectId !== project.id) return null;
    return principal.permissions.includes('write') ? 'editor' : 'viewer';
  }
  if (principal.role === 'admin') return 'admin';
  if (principal.projectAccess === null) return principal.role;
  return principal.projectAccess.find((entry) => entry.projectId === project.id)?.role ?? null;
}

export function canSeeProject(principal: Principal, project: Pick<ProjectRecord, 'id'>): boolean {
  return roleInProject(principal, project) !== null;
}

/**
 * A project a route addresses: one the principal cannot see is answered exactly as one that does not
 * exist (`missing`), so that nobody learns which slugs or ids other projects use.
 */
export function visibleProject<P extends Pick<ProjectRecord, 'id'>>(principal: Principal, project: P | undefined, missing: () => Error): P {
  if (!project || !canSeeProject(principal, project)) throw missing();
  return project;
}

export function requireGlobalAdmin(principal: Principal): void {
  if (principal.kind !== 'user' || principal.role !== 'admin') throw forbidden('This operation requires the admin role');
}

/** Management needs an interactive user session: API tokens are refused. */
export function requireSession(principal: Principal): void {
  if (principal.kind === 'token') throw forbidden('API tokens cannot perform this operation; sign in as a user');
}

export interface ProjectRequirement {
  /** The dataset the operation touches; a token scoped to another dataset is refused. */
  dataset?: string;
  /** Management operations (API tokens, webhooks, import) need an interactive user session. */
  sessionOnly?: boolean;
}

/** Throws 403 unless the principal has at least `minimum` in the project (and dataset). */
export function requireProjectRole(
  principal: Principal,
  project: Pick<ProjectRecord, 'id'>,
  minimum: Role,
  requirement: ProjectRequirement = {},
): void {
  if (requirement.sessionOnly) requireSession(principal);
  if (principal.kind === 'token' && principal.projectId !== project.id) {
    throw forbidden('This API token belongs to another project');
  }
  if (
    principal.kind === 'token' &&
    principal.dataset !== null &&
    requirement.dataset !== undefined &&
    principal.dataset !== requirement.dataset
  ) {
    throw forbidden(`This API token is limited to the dataset "${principal.dataset}"`);
  }
  const role = roleInProject(principal, project);
  if (role === null) throw forbidden('No access to this project');
  if (!atLeast(role, minimum)) throw forbidden(`This operation requires the ${minimum} role in the project`);
}
