import type { ProjectAccessEntry, Role, UserRecord } from '../store/index.ts';

/** A user as the API shows it: never the password hash. */
export interface SafeUser {
  id: string;
  email: string;
  name: string;
  role: Role;
  project_access: ProjectAccessEntry[] | null;
  created_at: string;
  updated_at: string;
}

export function toSafeUser(user: UserRecord): SafeUser {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    project_access: user.projectAccess,
    created_at: user.createdAt,
    updated_at: user.updatedAt,
  };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Emails are unique regardless of case: stored trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function isValidEmail(email: string): boolean {
  return email.length <= 254 && EMAIL.test(email);
}
