// The document index's SQL that differs between the engines: reading its binary JSON (an entries
// row's values, parts of a document), finding text in text, joining a candidate's entries row,
// running many queries of one shape as one statement, expanding a new document's entries row,
// and where a number's value is read. One object per engine (sqlite.ts, postgres.ts); the rest of
// the index's SQL is shared.
import type { Dialect, SqlExecutor } from '../../sql.ts';
import type { Sql } from '../../sql-fragment.ts';
import type { DocumentSelection } from '../document-query.ts';
import type { CompiledQuery, RawRow } from '../sql/compile-query.ts';
import { postgresIndexDialect } from './postgres.ts';
import { sqliteIndexDialect } from './sqlite.ts';

export interface IndexDialect {
  /** The encoded value at `path` of the entries row aliased `e` (SQL NULL where it has none). */
  entryValue(path: string): Sql;
  /** Where `needle` starts in `text`, from 1; 0 when it is not in it. */
  position(text: Sql, needle: Sql): Sql;
  /** The content of the documents row `d` as selected: whole, or the values at some paths. */
  content(select: DocumentSelection): string;
  /**
   * What a whole document takes (read without reading it: what its parse takes, and where it does
   * not come as its text, the larger of that and its text's length), selected beside it, so that
   * pages can be sized by what they hold.
   */
  readonly contentBytes: string;
  /**
   * How each candidate row (aliased `row`) meets its entries row `e`: a join, and its conditions.
   * `window`: the statement has a window, so few of the candidates are read. `rowId`: the row's id
   * as the join reads it (`row.id`, or opaque()).
   */
  joinEntries(row: string, candidates: 'window' | 'all', rowId?: string): { join: string; conditions: string[] };
  /**
   * The same value as a column, written so that the planner does not read it as that column: an
   * equality with it joins by key without carrying a bound on the column to the table joined.
   */
  opaque(column: string): string;
  /**
   * Runs queries compiled to the same text, with other parameters, as one statement: per query,
   * its rows. (A subquery per document of a page is a thousand such queries.)
   */
  runBatch(db: SqlExecutor, queries: readonly CompiledQuery[]): Promise<RawRow[][]>;
  /**
   * How the value rows' `num` (a number's value decoded, NULL for other values; for aggregates of a
   * path's numbers in SQL, DocumentSelection `numbers`) is filled: 'generated' by the database as
   * it stores a row, or 'written' by the writer beside the value.
   */
  readonly numbers: 'generated' | 'written';
  /**
   * The sum of a column of numbers (an aggregate), without an error however large it grows: past
   * `limit` in magnitude its value is not used, only that it is past it (PostgreSQL's SUM of
   * doubles raises one on overflow).
   */
  boundedSum(expression: string, limit: number): string;
  /** The value rows, then the reference rows, of documents whose entries row was just written, in key order. */
  expandEntries(projectId: string, dataset: string, ids: readonly string[]): [values: Sql, references: Sql];
}

const DIALECTS: Record<Dialect, IndexDialect> = { sqlite: sqliteIndexDialect, postgres: postgresIndexDialect };

export function indexDialect(name: Dialect): IndexDialect {
  return DIALECTS[name];
}
