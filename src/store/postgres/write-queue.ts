import type { Statement } from '../sql.ts';
import { Sql } from '../sql-fragment.ts';
import { joinedStatement, type PositionalStatement } from './placeholders.ts';

interface QueuedWrite {
  sql: Statement;
  params: readonly unknown[];
  /** The table it inserts into. */
  table: string;
  /** `WITH ... AS (INSERT ...) SELECT ...`: it can only be the last of a joined statement. */
  last: boolean;
}

/** The table an INSERT writes, with or without a WITH of its own in front. */
const INSERT = /^\s*(WITH\s+\w+\s+AS\s+\(\s*)?INSERT\s+INTO\s+([a-z_][a-z0-9_]*)\s/i;
/** A statement that only reads: one SELECT, no data-modifying part. */
const SELECT = /^\s*SELECT\s/i;
const MODIFIES = /\b(INSERT|UPDATE|DELETE|MERGE)\b/i;
/**
 * A joined statement's parameters at most: PostgreSQL takes 65,535; a write with more than a
 * tenth of that (an import's chunk) is sent on its own.
 */
const MAX_PARAMETERS = 30_000;
const MAX_QUEUED_PARAMETERS = 6_000;

const textOf = (sql: Statement) => (sql instanceof Sql ? sql.texts.join(' ') : sql);

/**
 * The INSERTs of one PostgreSQL transaction whose results nobody waits for (SqlExecutor.write),
 * held back and sent as one statement, each a data-modifying WITH query of it: a single-document
 * write sent its document, index rows, revision, event and change log entry in seven round
 * trips, and now in one. Held writes are sent before anything that could see them or their
 * absence:
 * - a statement that reads a table one of them writes (by name: the store's statements name
 *   every table they read; it has no views, rules or triggers) or that is not a plain SELECT;
 * - another write that names a table one of them writes (the same table, or one it reads): the
 *   parts of one statement share a snapshot, do not see each other's rows and must not touch the
 *   same rows, which PostgreSQL does not order;
 * - the end of the transaction (commit, or a rollback that was not caused by a failed statement,
 *   so that a dry run still fails where the writes would).
 * Only INSERTs wait: they cannot delete or change rows that a later read of another table would
 * miss (no cascades). A held write that fails fails the statement it is sent with, and so the
 * transaction, as it would have failed it alone.
 */
export class WriteQueue {
  private queued: QueuedWrite[] = [];
  private parameters = 0;
  private readonly send: (statement: PositionalStatement) => Promise<unknown>;

  constructor(send: (statement: PositionalStatement) => Promise<unknown>) {
    this.send = send;
  }

  /** Holds `sql` if it is an INSERT that may wait; false if it must be sent now (after `beforeStatement`). */
  async hold(sql: Statement, params: readonly unknown[]): Promise<boolean> {
    const text = textOf(sql);
    const insert = INSERT.exec(text);
    if (!insert || params.length > MAX_QUEUED_PARAMETERS) return false;
    const table = insert[2]!.toLowerCase();
    const last = insert[1] !== undefined;
    const previous = this.queued.at(-1);
    // Its own table is among those it names; a part that reads another part's table would not see its rows.
    if (previous?.last || this.queued.some((write) => mentions(text, write.table)) || this.parameters + params.length > MAX_PARAMETERS) await this.flush();
    this.queued.push({ sql, params, table, last });
    this.parameters += params.length;
    return true;
  }

  /** Sends what is held if `sql` could see it, before `sql` is sent. */
  async beforeStatement(sql: Statement): Promise<void> {
    if (this.queued.length === 0) return;
    const text = textOf(sql);
    if (!SELECT.test(text) || MODIFIES.test(text) || this.queued.some((write) => mentions(text, write.table))) await this.flush();
  }

  /** Sends every held write, in one statement. */
  async flush(): Promise<void> {
    if (this.queued.length === 0) return;
    const writes = this.queued;
    this.queued = [];
    this.parameters = 0;
    await this.send(joinedStatement(writes, join));
  }

  /** Forgets what is held (the transaction rolls back after a failed statement). */
  discard(): void {
    this.queued = [];
    this.parameters = 0;
  }
}

/** `WITH w0 AS (first), w1 AS (second), ... last`; a last one with a WITH of its own shares it. */
function join(texts: string[]): string {
  const last = texts.at(-1)!;
  const leading = texts.slice(0, -1).map((text, i) => `w${i} AS (${text})`);
  if (leading.length === 0) return last;
  const withOwn = /^\s*WITH\s/i.exec(last);
  return withOwn ? `WITH ${leading.join(', ')}, ${last.slice(withOwn[0].length)}` : `WITH ${leading.join(', ')} ${last}`;
}

const tableNames = new Map<string, RegExp>();
function mentions(text: string, table: string): boolean {
  let name = tableNames.get(table);
  if (!name) tableNames.set(table, (name = new RegExp(`\\b${table}\\b`, 'i')));
  return name.test(text);
}
