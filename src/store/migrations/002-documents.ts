import type { ColumnTypes, Migration } from './index.ts';

// Documents are stored whole (system fields included) beside the columns we look them up by.
// Revisions are per base id (a draft and its published form share one history). A revision's
// content is NULL while it is the document's current state (the documents row holds it, so a new
// document is written once, not twice); it is copied in when the document next changes or goes.
// The outbox holds
// one row per committed change, in commit order, for webhooks, real-time and other consumers.
// Ids compare byte by byte on both engines, so `*` has one order everywhere (GROQ's dataset order).
const sql = (t: ColumnTypes) => `
CREATE TABLE documents (
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  dataset TEXT NOT NULL,
  id ${t.binaryText} NOT NULL,
  type TEXT NOT NULL,
  rev TEXT NOT NULL,
  created_at ${t.timestamp} NOT NULL,
  updated_at ${t.timestamp} NOT NULL,
  content ${t.json} NOT NULL,
  PRIMARY KEY (project_id, dataset, id)
);
CREATE INDEX documents_type ON documents(project_id, dataset, type);
CREATE TABLE revisions (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  dataset TEXT NOT NULL,
  document_id ${t.binaryText} NOT NULL,
  revision INTEGER NOT NULL,
  is_draft ${t.flag} NOT NULL,
  transaction_id TEXT NOT NULL,
  content ${t.json},
  changed_by TEXT,
  created_at ${t.timestamp} NOT NULL,
  UNIQUE (project_id, dataset, document_id, revision)
);
CREATE INDEX revisions_current ON revisions(project_id, dataset, document_id) WHERE content IS NULL;
CREATE TABLE outbox (
  seq ${t.serialKey},
  commit_order ${t.transactionOrder},
  project_id TEXT NOT NULL,
  dataset TEXT NOT NULL,
  event TEXT NOT NULL,
  document_id TEXT NOT NULL,
  document_type TEXT,
  transaction_id TEXT NOT NULL,
  payload ${t.json} NOT NULL,
  created_at ${t.timestamp} NOT NULL
);
CREATE INDEX outbox_order ON outbox(commit_order, seq);
CREATE TABLE schedules (
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  dataset TEXT NOT NULL,
  document_id TEXT NOT NULL,
  scheduled_at ${t.timestamp} NOT NULL,
  created_by TEXT,
  created_at ${t.timestamp} NOT NULL,
  PRIMARY KEY (project_id, dataset, document_id)
);
CREATE INDEX schedules_due ON schedules(scheduled_at);
`;

export const documents: Migration = { version: 2, name: 'documents', sql };
