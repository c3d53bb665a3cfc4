import type { ProjectRecord, Role, UserRecord } from '../store/index.ts';
import { roleInProject } from '../access/access-control.ts';
import { userPrincipal } from '../access/principal.ts';
import { SANITY_ROLES, type SanityRole } from '../identity/sanity-user.ts';

/** A project in Sanity's shape, as Studio reads it (`/projects/:id`), with its members. */
export interface SanityProject {
  id: string;
  displayName: string;
  studioHost: null;
  organizationId: null;
  metadata: Record<string, never>;
  isBlocked: false;
  isDisabled: false;
  createdAt: string;
  members: SanityMember[];
}

export interface SanityMember {
  id: string;
  role: string;
  roles: SanityRole[];
  isCurrentUser: boolean;
  isRobot: false;
  createdAt: string;
}

export interface SanityDataset {
  name: string;
  aclMode: 'private';
}

/** The project with every user who has a role in it. */
export function sanityProject(project: ProjectRecord, users: readonly UserRecord[], currentUserId: string | null): SanityProject {
  const members: SanityMember[] = [];
  for (const user of users) {
    const role: Role | null = roleInProject(userPrincipal(user), project);
    if (role === null) continue;
    const sanityRole = SANITY_ROLES[role];
    members.push({ id: user.id, role: sanityRole.name, roles: [sanityRole], isCurrentUser: user.id === currentUserId, isRobot: false, createdAt: user.createdAt });
  }
  return {
    id: project.id,
    displayName: project.name,
    studioHost: null,
    organizationId: null,
    metadata: {},
    isBlocked: false,
    isDisabled: false,
    createdAt: project.createdAt,
    members,
  };
}

export function sanityDatasets(project: ProjectRecord): SanityDataset[] {
  return project.datasets.map((name) => ({ name, aclMode: 'private' }));
}
