/**
 * Reading an append-only log (the outbox, the change log) in commit order. Its rows carry an
 * increasing `seq` and the writing transaction's `commit_order` (ColumnTypes.transactionOrder).
 * SQLite commits one writer at a time, so `seq` alone is commit order. PostgreSQL hands out `seq`
 * at insert and commits in another order, so a reader going by `seq` could pass the row of a
 * transaction still in progress and never see it; there readers go by (transaction id, seq) and
 * stop before the oldest transaction still running (the snapshot's xmin): every row before that
 * point is final, and nothing can appear behind it. The SQL of each is in dialects/.
 */
import { sqlDialect, type LogPosition } from './dialects/dialect.ts';
import type { Dialect } from './sql.ts';
import type { Sql } from './sql-fragment.ts';

export type { LogPosition };

export const LOG_START: LogPosition = Object.freeze({ order: '0', seq: 0 });

/** SELECT `columns` (plus `seq` and `commit_order` as text) of rows after `position`, oldest first. */
export function readAfter(dialect: Dialect, table: string, columns: string, position: LogPosition, limit: number): Sql {
  return sqlDialect(dialect).logAfter(table, columns, position, limit);
}

/** Whether rows after `position` have committed but `readAfter` cannot read them yet; null where that cannot happen. */
export function heldBackAfter(dialect: Dialect, table: string, position: LogPosition): Sql | null {
  return sqlDialect(dialect).logHeldBack(table, position);
}

/**
 * Which of a log's transactions had committed at one moment: SQLite's rows up to a `seq`;
 * PostgreSQL's snapshot (transactions before `xmin`, or before `xmax` and not then running).
 */
export type CommitHorizon =
  | { readonly kind: 'seq'; readonly seq: number }
  | { readonly kind: 'snapshot'; readonly xmin: bigint; readonly xmax: bigint; readonly running: ReadonlySet<bigint> };

/** The horizon a dialect's `commitHorizon` statement returned as text: a `seq`, or pg_snapshot's `xmin:xmax:xip,...`. */
export function parseCommitHorizon(text: string): CommitHorizon {
  const [xmin, xmax, running] = text.split(':');
  if (xmax === undefined) return { kind: 'seq', seq: Number(text) };
  return { kind: 'snapshot', xmin: BigInt(xmin!), xmax: BigInt(xmax), running: new Set(running ? running.split(',').map(BigInt) : []) };
}

/** Whether the transaction that wrote the row at `position` had committed at `horizon`. */
export function committedAt(horizon: CommitHorizon, position: LogPosition): boolean {
  if (horizon.kind === 'seq') return position.seq <= horizon.seq;
  const order = BigInt(position.order);
  return order < horizon.xmin || (order < horizon.xmax && !horizon.running.has(order));
}

export function positionOf(row: { seq: number | string; commit_order: string | number }): LogPosition {
  return { order: String(row.commit_order), seq: Number(row.seq) };
}
