import type { ProjectRecord, Role } from '../store/index.ts';
import type { Principal } from './principal.ts';
import { roleInProject } from './access-control.ts';

/**
 * Sanity's document grants, as Studio reads them from `/projects/:id/datasets/:dataset/acl`: GROQ
 * filters with the permissions they give. Studio evaluates them in the browser to enable its
 * forms and actions; the service itself enforces roles as always (access-control.ts).
 */
export type GrantPermission = 'read' | 'create' | 'update' | 'history' | 'editHistory';

export interface Grant {
  filter: string;
  permissions: GrantPermission[];
}

/** Every document, drafts included. */
const EVERY_DOCUMENT = '_id in path("**")';

const PERMISSIONS: Readonly<Record<Role, GrantPermission[]>> = {
  admin: ['read', 'create', 'update', 'history', 'editHistory'],
  editor: ['read', 'create', 'update', 'history', 'editHistory'],
  viewer: ['read', 'history'],
};

/** The grants of a principal in a dataset of a project: none outside a token's dataset. */
export function grantsIn(principal: Principal, project: Pick<ProjectRecord, 'id'>, dataset: string): Grant[] {
  if (principal.kind === 'token' && principal.dataset !== null && principal.dataset !== dataset) return [];
  const role = roleInProject(principal, project);
  return role === null ? [] : [{ filter: EVERY_DOCUMENT, permissions: [...PERMISSIONS[role]] }];
}
