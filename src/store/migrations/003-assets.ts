import type { ColumnTypes, Migration } from './index.ts';

// Asset records; the bytes live in the blob store under `path`.
const sql = (t: ColumnTypes) => `
CREATE TABLE assets (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  dataset TEXT NOT NULL,
  type TEXT NOT NULL,
  filename TEXT,
  mime_type TEXT NOT NULL,
  extension TEXT NOT NULL,
  size INTEGER NOT NULL,
  sha1 TEXT NOT NULL,
  path TEXT NOT NULL,
  metadata ${t.json} NOT NULL,
  created_by TEXT,
  created_at ${t.timestamp} NOT NULL
);
CREATE INDEX assets_listing ON assets(project_id, dataset, type, created_at);
CREATE INDEX assets_sha1 ON assets(project_id, dataset, sha1);
`;

export const assets: Migration = { version: 3, name: 'assets', sql };
