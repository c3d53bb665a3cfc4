// What differs between the engines, outside the adapters that connect to them (sqlite/, postgres/):
// one object per engine (sqlite.ts, postgres.ts) with the same members, as kysely's dialects
// override only what differs. Code asks the dialect rather than testing which engine it runs on.
import type { Dialect } from '../sql.ts';
import type { Sql } from '../sql-fragment.ts';
import { postgresDialect } from './postgres.ts';
import { sqliteDialect } from './sqlite.ts';

/** A position in an append-only log read in commit order (../commit-order.ts). */
export interface LogPosition {
  order: string;
  seq: number;
}

export interface SqlDialect {
  readonly name: Dialect;
  /** How a statement's parameter at `index` (from 0) is written. */
  placeholder(index: number): string;
  /**
   * Statements run outside this thread, in the database server: a statement sent ahead runs while
   * this thread works (in process, SQLite's run on the thread, and nothing would overlap).
   */
  readonly readsOffThread: boolean;
  /**
   * Binary JSON columns (documents.content, document_entries.vals: jsonb, SQLite's JSONB) are read
   * a field at a time without parsing text. In portable text, the parameter that writes one from
   * JSON text.
   */
  readonly binaryJsonParam: string;
  /** A binary JSON column as the driver returns JSON: parsed on PostgreSQL, text from SQLite. */
  binaryJsonColumn(column: string): string;
  /** A binary JSON column as JSON text (exports send it without parsing it). */
  binaryJsonText(column: string): string;
  /**
   * A row of `documents`: the length of its content's JSON text in bytes, read without reading the
   * content (SQLite's binary JSON is about as long as its text; PostgreSQL keeps the length in a
   * column, as its stored size is compressed).
   */
  readonly documentTextBytes: string;
  /**
   * A row of `documents`: what reading its content and parsing it takes, in bytes, the larger of
   * documentTextBytes and `heap_bytes` (migration 017), read without reading the content.
   */
  readonly documentParsedBytes: string;
  /**
   * A row of `revisions`: what reading the content it keeps and parsing it takes, in bytes (as
   * documentParsedBytes), read without reading the content; null while the revision is its
   * document's current state (content NULL).
   */
  readonly revisionParsedBytes: string;
  /**
   * The SET list of an UPDATE of `revisions` that copies in the content of the document
   * `currentDocument` (`FROM documents d WHERE ...`) finds, with what revisionParsedBytes reads.
   */
  copyCurrentContent(currentDocument: string): string;
  /** SELECT `columns`, `seq` and `commit_order` (as text) of a log's rows after `position`, oldest first. */
  logAfter(table: string, columns: string, position: LogPosition, limit: number): Sql;
  /**
   * One row `{held}`: whether rows after `position` have committed but wait for `logAfter` behind
   * a transaction still running. Null where that cannot happen (SQLite's commits are in `seq` order).
   */
  logHeldBack(table: string, position: LogPosition): Sql | null;
  /** A condition on a log's rows: at or before `position`. */
  logAtOrBefore(position: LogPosition): Sql;
  /** One row `{horizon}`: which of a log's rows have committed so far, as text for parseCommitHorizon (../commit-order.ts). */
  commitHorizon(table: string): string;
  /** A log's commit order, as an ORDER BY list. */
  readonly logOrder: string;
  /**
   * The settings that decide whether an answered (committed) write survives a power loss, as rows
   * `{name, setting}`: run on the writing connection, whose settings they are on SQLite.
   */
  readonly durabilitySettings: string;
}

const DIALECTS: Record<Dialect, SqlDialect> = { sqlite: sqliteDialect, postgres: postgresDialect };

export function sqlDialect(name: Dialect): SqlDialect {
  return DIALECTS[name];
}
