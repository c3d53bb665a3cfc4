/** Rows as the store hands them out: plain data, timestamps as ISO 8601 strings. */
export type Role = 'admin' | 'editor' | 'viewer';

export interface ProjectAccessEntry {
  projectId: string;
  role: Role;
}

export interface UserRecord {
  id: string;
  email: string;
  name: string;
  role: Role;
  passwordHash: string;
  projectAccess: ProjectAccessEntry[] | null;
  createdAt: string;
  updatedAt: string;
}

export interface Locales {
  default: string;
  languages: { id: string; title: string }[];
}

export interface ProjectRecord {
  id: string;
  name: string;
  slug: string;
  datasets: string[];
  locales: Locales | null;
  createdAt: string;
  updatedAt: string;
}

export interface RefreshTokenRecord {
  id: string;
  userId: string;
  familyId: string;
  tokenHash: string;
  expiresAt: string;
  usedAt: string | null;
  revokedAt: string | null;
  createdAt: string;
}

export type TokenPermission = 'read' | 'write';

export interface ApiTokenRecord {
  id: string;
  projectId: string;
  name: string;
  permissions: TokenPermission[];
  dataset: string | null;
  tokenHash: string;
  createdBy: string | null;
  lastUsedAt: string | null;
  createdAt: string;
}
