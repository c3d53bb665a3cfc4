import { raw, sql } from '../sql-fragment.ts';
import type { SqlDialect } from './dialect.ts';

export const postgresDialect: SqlDialect = {
  name: 'postgres',
  placeholder: (index) => `$${index + 1}`,
  readsOffThread: true,
  binaryJsonParam: '?',
  binaryJsonColumn: (column) => column,
  binaryJsonText: (column) => `CAST(${column} AS TEXT)`,
  // The stored datum's size, from its TOAST pointer: compressed, often to a half or a third of its
  // text (far less for repetitive text). Pages of 2 MB of it were a third slower to export than
  // pages of 2,000 small documents; at 8 MB small documents make the same pages as before.
  binaryJsonStoredBytes: (column) => `pg_column_size(${column})`,
  pageStoredBytes: 8 * 1024 * 1024,
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
