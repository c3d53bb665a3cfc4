import type { ColumnTypes, Migration } from './index.ts';

// What editors using Sanity Studio need beyond the API: sessions that outlive a 15-minute access
// token (signed in through the service's login page, revocable, only their hash stored), the
// origins each project lets browsers call the API from (CORS), and each user's small UI settings
// (Studio's key-value store: layouts, sort orders, what was seen).
const sql = (t: ColumnTypes) => `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE,
  created_at ${t.timestamp} NOT NULL,
  expires_at ${t.timestamp} NOT NULL,
  last_used_at ${t.timestamp},
  revoked_at ${t.timestamp}
);
CREATE INDEX sessions_user ON sessions(user_id);
CREATE TABLE cors_origins (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  origin TEXT NOT NULL,
  allow_credentials ${t.flag} NOT NULL,
  created_at ${t.timestamp} NOT NULL,
  UNIQUE (project_id, origin)
);
CREATE INDEX cors_origins_origin ON cors_origins(origin);
CREATE TABLE user_settings (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value ${t.json} NOT NULL,
  updated_at ${t.timestamp} NOT NULL,
  PRIMARY KEY (user_id, key)
);
`;

export const studio: Migration = { version: 10, name: 'studio', sql };
