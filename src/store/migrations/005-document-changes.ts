import type { ColumnTypes, Migration } from './index.ts';

// The change log of real-time listeners: one row per document a transaction wrote or deleted,
// written in that transaction. The outbox is not enough: it holds one event per operation for
// webhooks, so a publish's deleted draft and an unpublish's new draft have no row there, and
// listeners on drafts must see both. Contents are not copied: `previous_rev` and `result_rev` (null
// when the document was deleted) name the revisions (`revisions.transaction_id`) that hold the
// document before and after. `commit_order` lets PostgreSQL readers wait for transactions still in
// progress (see repos/document-changes.ts); `created_at` serves the pruning of old rows.
const sql = (t: ColumnTypes) => `
CREATE TABLE document_changes (
  seq ${t.serialKey},
  commit_order ${t.transactionOrder},
  project_id TEXT NOT NULL,
  dataset TEXT NOT NULL,
  document_id TEXT NOT NULL,
  transaction_id TEXT NOT NULL,
  previous_rev TEXT,
  result_rev TEXT,
  actor TEXT,
  created_at ${t.timestamp} NOT NULL
);
CREATE INDEX document_changes_order ON document_changes(commit_order, seq);
CREATE INDEX document_changes_created ON document_changes(created_at);
`;

export const documentChanges: Migration = { version: 5, name: 'document-changes', sql };
