import type { Role, UserRecord } from '../store/index.ts';

/**
 * Users in Sanity's shapes, as Studio reads them: `/users/me` is the CurrentUser (Studio counts
 * a user with no `roles` as not authorized for the project), `/users/:ids` the User of others.
 */
export interface SanityRole {
  name: string;
  title: string;
}

export interface SanityCurrentUser {
  id: string;
  name: string;
  email: string;
  profileImage: string | null;
  provider: string;
  role: string;
  roles: SanityRole[];
}

export interface SanityUser {
  id: string;
  displayName: string;
  imageUrl: string | null;
  email?: string;
}

/** Our roles under Sanity's names for them. */
export const SANITY_ROLES: Readonly<Record<Role, SanityRole>> = {
  admin: { name: 'administrator', title: 'Administrator' },
  editor: { name: 'editor', title: 'Editor' },
  viewer: { name: 'viewer', title: 'Viewer' },
};

/** `role`: the user's role in the project Studio asked about (null: none, so no roles). */
export function sanityCurrentUser(user: UserRecord, role: Role | null): SanityCurrentUser {
  const roles = role === null ? [] : [SANITY_ROLES[role]];
  return { id: user.id, name: user.name, email: user.email, profileImage: null, provider: 'local', role: roles[0]?.name ?? '', roles };
}

export function sanityUser(user: UserRecord, withEmail: boolean): SanityUser {
  return { id: user.id, displayName: user.name, imageUrl: null, ...(withEmail ? { email: user.email } : {}) };
}
