import type { Dialect } from './sql.ts';

/**
 * Reading an append-only log (the outbox, the change log) in commit order. Its rows carry an
 * increasing `seq` and the writing transaction's `commit_order` (ColumnTypes.transactionOrder).
 * SQLite commits one writer at a time, so `seq` alone is commit order. PostgreSQL hands out `seq`
 * at insert and commits in another order, so a reader going by `seq` could pass the row of a
 * transaction still in progress and never see it; there readers go by (transaction id, seq) and
 * stop before the oldest transaction still running (the snapshot's xmin): every row before that
 * point is final, and nothing can appear behind it.
 */
export interface LogPosition {
  order: string;
  seq: number;
}

export const LOG_START: LogPosition = Object.freeze({ order: '0', seq: 0 });

export interface OrderedRead {
  sql: string;
  params: unknown[];
}

/** SELECT `columns` (plus `seq` and `commit_order` as text) of rows after `position`, oldest first. */
export function readAfter(dialect: Dialect, table: string, columns: string, position: LogPosition, limit: number): OrderedRead {
  if (dialect === 'sqlite') {
    return {
      sql: `SELECT seq, CAST(commit_order AS TEXT) AS commit_order, ${columns} FROM ${table} WHERE seq > ? ORDER BY seq LIMIT ?`,
      params: [position.seq, limit],
    };
  }
  return {
    sql: `SELECT seq, commit_order::text AS commit_order, ${columns} FROM ${table}
          WHERE (commit_order, seq) > (?::xid8, ?) AND commit_order < pg_snapshot_xmin(pg_current_snapshot())
          ORDER BY commit_order, seq LIMIT ?`,
    params: [position.order, position.seq, limit],
  };
}

/** A condition on a log's rows: at or before `position` in commit order. */
export function atOrBefore(dialect: Dialect, position: LogPosition): OrderedRead {
  return dialect === 'sqlite'
    ? { sql: 'seq <= ?', params: [position.seq] }
    : { sql: '(commit_order, seq) <= (?::xid8, ?)', params: [position.order, position.seq] };
}

export function positionOf(row: { seq: number | string; commit_order: string | number }): LogPosition {
  return { order: String(row.commit_order), seq: Number(row.seq) };
}
