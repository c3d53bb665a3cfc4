import { raw, sql } from '../sql-fragment.ts';
import type { SqlDialect } from './dialect.ts';

export const postgresDialect: SqlDialect = {
  name: 'postgres',
  placeholder: (index) => `$${index + 1}`,
  readsOffThread: true,
  binaryJsonParam: '?',
  binaryJsonColumn: (column) => column,
  binaryJsonText: (column) => `CAST(${column} AS TEXT)`,
  // Kept by the database beside each document (migration 014): the stored size is compressed.
  documentTextBytes: 'content_bytes',
  // GREATEST passes over NULLs (documents written before migration 017).
  documentParsedBytes: 'GREATEST(content_bytes, heap_bytes)',
  // Copied with the content (migrations 016, 017); revisions kept before them are measured as they
  // are read. NULL where the content is (heap_bytes is then NULL too).
  revisionParsedBytes: 'GREATEST(COALESCE(content_bytes, octet_length(content::text)), heap_bytes)',
  copyCurrentContent: (currentDocument) => `(content, content_bytes, heap_bytes) = (SELECT d.content, d.content_bytes, d.heap_bytes ${currentDocument})`,
  // Transactions commit in another order than they take `seq`: rows go by (transaction id, seq),
  // up to the oldest transaction still running, before which nothing can appear any more.
  logAfter: (table, columns, position, limit) =>
    sql`SELECT seq, commit_order::text AS commit_order, ${raw(columns)} FROM ${raw(table)}
        WHERE (commit_order, seq) > (${position.order}::xid8, ${position.seq}) AND commit_order < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY commit_order, seq LIMIT ${limit}`,
  // Rows this snapshot sees have committed; those at or past its xmin wait for an older transaction.
  logHeldBack: (table, position) =>
    sql`SELECT EXISTS (SELECT 1 FROM ${raw(table)}
        WHERE (commit_order, seq) > (${position.order}::xid8, ${position.seq}) AND commit_order >= pg_snapshot_xmin(pg_current_snapshot())) AS held`,
  logAtOrBefore: (position) => sql`(commit_order, seq) <= (${position.order}::xid8, ${position.seq})`,
  commitHorizon: () => 'SELECT pg_current_snapshot()::text AS horizon',
  logOrder: 'commit_order, seq',
  durabilitySettings: `SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes') ORDER BY name`,
};
