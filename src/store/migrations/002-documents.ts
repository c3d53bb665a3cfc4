import type { Migration } from './index.ts';

// Documents are stored whole (system fields included) beside the columns we look them up by.
// Revisions are per base id (a draft and its published form share one history). The outbox holds
// one row per committed change, in commit order, for webhooks, real-time and other consumers.
// Flags are small integers on both engines, so repositories bind the same values everywhere.
const sqlite = `
CREATE TABLE documents (
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  dataset TEXT NOT NULL,
  id TEXT NOT NULL,
  type TEXT NOT NULL,
  rev TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  content TEXT NOT NULL,
  PRIMARY KEY (project_id, dataset, id)
);
CREATE INDEX documents_type ON documents(project_id, dataset, type);
CREATE TABLE revisions (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  dataset TEXT NOT NULL,
  document_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  is_draft INTEGER NOT NULL,
  transaction_id TEXT NOT NULL,
  content TEXT NOT NULL,
  changed_by TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (project_id, dataset, document_id, revision)
);
CREATE TABLE outbox (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id TEXT NOT NULL,
  dataset TEXT NOT NULL,
  event TEXT NOT NULL,
  document_id TEXT NOT NULL,
  document_type TEXT,
  transaction_id TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE schedules (
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  dataset TEXT NOT NULL,
  document_id TEXT NOT NULL,
  scheduled_at TEXT NOT NULL,
  created_by TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (project_id, dataset, document_id)
);
CREATE INDEX schedules_due ON schedules(scheduled_at);
`;

const postgres = `
CREATE TABLE documents (
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  dataset TEXT NOT NULL,
  id TEXT NOT NULL,
  type TEXT NOT NULL,
  rev TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL,
  content JSONB NOT NULL,
  PRIMARY KEY (project_id, dataset, id)
);
CREATE INDEX documents_type ON documents(project_id, dataset, type);
CREATE TABLE revisions (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  dataset TEXT NOT NULL,
  document_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  is_draft SMALLINT NOT NULL,
  transaction_id TEXT NOT NULL,
  content JSONB NOT NULL,
  changed_by TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  UNIQUE (project_id, dataset, document_id, revision)
);
CREATE TABLE outbox (
  seq BIGSERIAL PRIMARY KEY,
  project_id TEXT NOT NULL,
  dataset TEXT NOT NULL,
  event TEXT NOT NULL,
  document_id TEXT NOT NULL,
  document_type TEXT,
  transaction_id TEXT NOT NULL,
  payload JSONB NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE schedules (
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  dataset TEXT NOT NULL,
  document_id TEXT NOT NULL,
  scheduled_at TIMESTAMPTZ NOT NULL,
  created_by TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (project_id, dataset, document_id)
);
CREATE INDEX schedules_due ON schedules(scheduled_at);
`;

export const documents: Migration = { version: 2, name: 'documents', sql: { sqlite, postgres } };
