import type { Dialect } from '../sql.ts';
import type { ColumnTypes, Migration } from './index.ts';

// The change log becomes the transaction history that Sanity's History API serves (Studio's
// history panel and "review changes"): it already holds one row per document each transaction
// wrote or deleted, with the revisions before and after, the author, the time and the mutations
// sent, and it is no longer pruned after 24 hours. So no new rows are written per transaction; the
// indexes change:
// - document_changes_document: a document's changes in log order (history newest first, and the
//   document as it was at a revision or a time). SQLite's index carries the rowid (seq) anyway.
// - document_changes_transaction: a transaction's rows (fromTransaction/toTransaction, the other
//   documents a transaction touched, client-chosen transaction ids already used), and one
//   document's row in it: the asked documents' rows of a page of transactions are found by both,
//   not by reading the documents' whole history, nor the whole of an import's transaction.
// - revisions_transaction gains document_id for the same reason: the versions a page of history
//   shows are found by (transaction, document). SQLite keeps no statistics and picks the index
//   that matches the most columns, which with three each was the one on the document (every
//   revision of it).
// (Without the dataset in front, SQLite used the document index for a transaction's rows: every
// change of the dataset.)
// - document_changes_created served only the pruning, and goes. On SQLite document_changes_order
//   goes too: commit_order is a constant there, so it indexed seq, which is the rowid.
//
// History written before this migration: rows older than 24 hours were pruned, so they are rebuilt
// here from the revisions (every written version, with its author and time). Deletions wrote no
// revision, so they are inferred where the chains of versions show them:
// - a published revision after a draft revision (and before the draft's next one) is a publish,
//   which deletes the draft in the same transaction (our publish and Studio's both do);
// - a document whose last rebuilt version is not its current state, and that no kept row
//   continues, was deleted afterwards: at an unknown time, by an unknown author, so the row gets
//   the version's time, no author, and the transaction id `<version's transaction>.deleted`
//   (a `.` no client-chosen id has);
// - a deletion between two versions of the same form that the revisions do not show stays
//   unknown: the later version then reads as an edit of the earlier one.
// Rebuilt rows get negative seq values in revision order per document (before every kept row,
// which they precede in time) and commit_order 0, so no listener's position ever reaches them.
// Where a kept row exists, it wins. Conditions join on the new indexes and on an indexed working
// table, so the rebuild costs a sort of the revisions and index lookups, not a scan per row.
const sql = (_types: ColumnTypes, dialect: Dialect) => {
  const postgres = dialect === 'postgres';
  // revisions.document_id is COLLATE "C" on PostgreSQL, document_changes.document_id is not.
  const asLogId = (expression: string) => (postgres ? `(${expression}) COLLATE "default"` : expression);
  const sameChangeDoc = (alias: string, row: string) =>
    `${alias}.project_id = ${row}.project_id AND ${alias}.dataset = ${row}.dataset AND ${alias}.document_id = ${asLogId(`${row}.full_id`)}`;
  return `
DROP INDEX document_changes_created;
${postgres ? '' : 'DROP INDEX document_changes_order;'}
CREATE INDEX document_changes_document ON document_changes(project_id, dataset, document_id${postgres ? ', seq' : ''});
CREATE INDEX document_changes_transaction ON document_changes(project_id, dataset, transaction_id, document_id);
DROP INDEX revisions_transaction;
CREATE INDEX revisions_transaction ON revisions(project_id, dataset, transaction_id, document_id);
CREATE TEMPORARY TABLE history_missing AS
SELECT * FROM (
  SELECT r.project_id, r.dataset, r.document_id AS base_id, r.is_draft, r.revision, r.transaction_id, r.changed_by, r.created_at,
    CASE WHEN r.is_draft = 1 THEN 'drafts.' || r.document_id ELSE r.document_id END AS full_id,
    LAG(r.transaction_id) OVER w AS prev_tx,
    LAG(r.revision) OVER w AS prev_revision,
    LEAD(r.revision) OVER w AS next_revision
  FROM revisions r
  WINDOW w AS (PARTITION BY r.project_id, r.dataset, r.document_id, r.is_draft ORDER BY r.revision)
) chain
WHERE NOT EXISTS (SELECT 1 FROM document_changes c WHERE ${sameChangeDoc('c', 'chain')} AND c.transaction_id = chain.transaction_id);
CREATE INDEX history_missing_form ON history_missing(project_id, dataset, base_id, is_draft, revision);
CREATE TEMPORARY TABLE history_rebuilt (
  project_id TEXT NOT NULL,
  dataset TEXT NOT NULL,
  base_id TEXT NOT NULL,
  document_id TEXT NOT NULL,
  ord INTEGER NOT NULL,
  transaction_id TEXT NOT NULL,
  previous_rev TEXT,
  result_rev TEXT,
  actor TEXT,
  created_at ${postgres ? 'TIMESTAMPTZ' : 'TEXT'} NOT NULL
);
INSERT INTO history_rebuilt (project_id, dataset, base_id, document_id, ord, transaction_id, previous_rev, result_rev, actor, created_at)
SELECT m.project_id, m.dataset, m.base_id, m.full_id, m.revision * 2, m.transaction_id,
  CASE WHEN m.is_draft = 1 AND EXISTS (
    SELECT 1 FROM history_missing p WHERE p.project_id = m.project_id AND p.dataset = m.dataset AND p.base_id = m.base_id
      AND p.is_draft = 0 AND p.revision > m.prev_revision AND p.revision < m.revision
  ) THEN NULL ELSE m.prev_tx END,
  m.transaction_id, m.changed_by, m.created_at
FROM history_missing m;
INSERT INTO history_rebuilt (project_id, dataset, base_id, document_id, ord, transaction_id, previous_rev, result_rev, actor, created_at)
SELECT d.project_id, d.dataset, d.base_id, d.full_id, p.revision * 2 - 1, p.transaction_id, d.transaction_id, NULL, p.changed_by, p.created_at
FROM history_missing d
JOIN history_missing p ON p.project_id = d.project_id AND p.dataset = d.dataset AND p.base_id = d.base_id AND p.is_draft = 0
  AND p.revision = (
    SELECT MIN(q.revision) FROM history_missing q WHERE q.project_id = d.project_id AND q.dataset = d.dataset AND q.base_id = d.base_id
      AND q.is_draft = 0 AND q.revision > d.revision AND (d.next_revision IS NULL OR q.revision < d.next_revision)
  )
WHERE d.is_draft = 1
  AND NOT EXISTS (SELECT 1 FROM document_changes c WHERE ${sameChangeDoc('c', 'd')} AND c.previous_rev = d.transaction_id)
  AND NOT EXISTS (SELECT 1 FROM documents doc WHERE doc.project_id = d.project_id AND doc.dataset = d.dataset AND doc.id = d.full_id AND doc.rev = d.transaction_id);
INSERT INTO history_rebuilt (project_id, dataset, base_id, document_id, ord, transaction_id, previous_rev, result_rev, actor, created_at)
SELECT m.project_id, m.dataset, m.base_id, m.full_id, m.revision * 2 + 1, m.transaction_id || '.deleted', m.transaction_id, NULL, NULL, m.created_at
FROM history_missing m
WHERE m.next_revision IS NULL
  AND NOT EXISTS (SELECT 1 FROM document_changes c WHERE ${sameChangeDoc('c', 'm')} AND c.previous_rev = m.transaction_id)
  AND NOT EXISTS (SELECT 1 FROM documents doc WHERE doc.project_id = m.project_id AND doc.dataset = m.dataset AND doc.id = m.full_id AND doc.rev = m.transaction_id)
  AND NOT (m.is_draft = 1 AND EXISTS (
    SELECT 1 FROM history_missing q WHERE q.project_id = m.project_id AND q.dataset = m.dataset AND q.base_id = m.base_id
      AND q.is_draft = 0 AND q.revision > m.revision
  ));
INSERT INTO document_changes (seq, commit_order, project_id, dataset, document_id, transaction_id, previous_rev, result_rev, actor, created_at, mutations)
SELECT ROW_NUMBER() OVER (ORDER BY project_id, dataset, base_id, ord) - (SELECT COUNT(*) FROM history_rebuilt) - 1,
  ${postgres ? `'0'::xid8` : '0'}, project_id, dataset, document_id, transaction_id, previous_rev, result_rev, actor, created_at, NULL
FROM history_rebuilt;
DROP TABLE history_rebuilt;
DROP TABLE history_missing;
`;
};

export const transactionHistory: Migration = { version: 11, name: 'transaction-history', sql };
