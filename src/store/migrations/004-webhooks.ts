import type { ColumnTypes, Migration } from './index.ts';

// Webhooks and their deliveries. A delivery row is the durable job: it is created from an outbox
// event, claimed by a worker with a lease (next_attempt_at moves past the attempt's deadline), and
// finished as succeeded or failed. worker_cursors records how far a consumer has read the outbox.
const sql = (t: ColumnTypes) => `
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  url TEXT NOT NULL,
  events ${t.json} NOT NULL,
  dataset TEXT NOT NULL,
  active ${t.flag} NOT NULL,
  secret TEXT NOT NULL,
  created_at ${t.timestamp} NOT NULL,
  updated_at ${t.timestamp} NOT NULL
);
CREATE INDEX webhooks_project ON webhooks(project_id, dataset);
CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  outbox_seq BIGINT NOT NULL,
  event TEXT NOT NULL,
  payload ${t.json} NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  next_attempt_at ${t.timestamp} NOT NULL,
  status_code INTEGER,
  response_body TEXT,
  error TEXT,
  created_at ${t.timestamp} NOT NULL,
  updated_at ${t.timestamp} NOT NULL,
  UNIQUE (webhook_id, outbox_seq)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
CREATE INDEX webhook_deliveries_log ON webhook_deliveries(webhook_id, created_at);
CREATE TABLE worker_cursors (
  name TEXT PRIMARY KEY,
  commit_order TEXT NOT NULL,
  position BIGINT NOT NULL
);
`;

export const webhooks: Migration = { version: 4, name: 'webhooks', sql };
