import type { ColumnTypes, Migration } from './index.ts';

const sql = (t: ColumnTypes) => `
CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  slug TEXT NOT NULL UNIQUE,
  datasets ${t.json} NOT NULL,
  locales ${t.json},
  created_at ${t.timestamp} NOT NULL,
  updated_at ${t.timestamp} NOT NULL
);
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  role TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  project_access ${t.json},
  created_at ${t.timestamp} NOT NULL,
  updated_at ${t.timestamp} NOT NULL
);
CREATE TABLE refresh_tokens (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  family_id TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  expires_at ${t.timestamp} NOT NULL,
  used_at ${t.timestamp},
  revoked_at ${t.timestamp},
  created_at ${t.timestamp} NOT NULL
);
CREATE INDEX refresh_tokens_family ON refresh_tokens(family_id);
CREATE TABLE api_tokens (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  permissions ${t.json} NOT NULL,
  dataset TEXT,
  token_hash TEXT NOT NULL UNIQUE,
  created_by TEXT,
  last_used_at ${t.timestamp},
  created_at ${t.timestamp} NOT NULL
);
CREATE INDEX api_tokens_project ON api_tokens(project_id);
`;

export const identity: Migration = { version: 1, name: 'identity', sql };
