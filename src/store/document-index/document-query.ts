// What the document index can be asked: documents of one dataset matching a condition, in id order
// or in the order of a path's indexed value, a window of them, their number, or a summary of the
// numbers at a path. Dialect-neutral: access-path.ts chooses how to read it, sql/compile-query.ts
// turns that into SQL. Values are encoded as values.ts encodes them.
import type { NumberSummary } from '../../groq/index.ts';

export type Bound = { value: string; inclusive: boolean };

export type DocumentCondition =
  | { kind: 'all' }
  | { kind: 'none' }
  | { kind: 'id'; ids: readonly string[] }
  | { kind: 'idRange'; low?: Bound; high?: Bound }
  | { kind: 'type'; types: readonly string[] }
  /** Documents that reference one of the ids. */
  | { kind: 'references'; ids: readonly string[] }
  /** Documents with an indexed value at `path` within the bounds (both inclusive for equality). */
  | { kind: 'value'; path: string; low?: Bound; high?: Bound }
  /**
   * Documents whose string at `path` contains each of `texts` (lowercase ASCII, without dots) once
   * its dots are removed and its ASCII letters lowered, and those whose string the index holds
   * only the start of (values.ts). A superset, for narrowing a condition the evaluator checks.
   */
  | { kind: 'contains'; path: string; texts: readonly string[] }
  /** Documents of one of these shapes (see entries.ts). */
  | { kind: 'shape'; hashes: readonly string[] }
  | { kind: 'not'; condition: DocumentCondition }
  | { kind: 'and'; conditions: readonly DocumentCondition[] }
  | { kind: 'or'; conditions: readonly DocumentCondition[] };

export type DocumentOrder =
  | { kind: 'id'; descending: boolean }
  /** By the indexed scalar at `path`, then by id; documents without one are left out. */
  | { kind: 'value'; path: string; descending: boolean };

export type DocumentSelection =
  | { kind: 'content' }
  | { kind: 'count' }
  /**
   * A summary of the numbers among the values of a path's value rows (the access path must read
   * them: a walk of the path's values), summed by the database (the value rows' column `num`).
   */
  | { kind: 'numbers' }
  /**
   * Per distinct value of a path's value rows, that value (column v0) and the least id holding it
   * (the access path must read them: a walk of the path's values), grouped by the database.
   */
  | { kind: 'firsts' }
  /** The encoded values at these paths instead of the content, and the type if `type`. */
  | { kind: 'values'; paths: readonly string[]; type: boolean }
  /**
   * The content cut down to the values at these paths (attribute names, and array elements by
   * index): per row, a JSON array of the values (null where a document has none), beside the id
   * and type columns. Names are identifiers (KEY_PATTERN) and indexes non-negative integers: the
   * SQL names them literally.
   */
  | { kind: 'paths'; paths: readonly DocumentPath[] };

/** A path into a document: attribute names and array indexes. */
export type DocumentPath = readonly (string | number)[];

/** Attribute names a `paths` selection may hold: GROQ's plain identifiers. */
export const KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Whether SQL may name a step of a selected path literally: an identifier, or an index from the start. */
export function isPlainStep(step: string | number): boolean {
  return typeof step === 'number' ? Number.isSafeInteger(step) && step >= 0 : KEY_PATTERN.test(step);
}

export interface DocumentQuery {
  where: DocumentCondition;
  order: DocumentOrder;
  offset: number;
  limit: number | null;
  /**
   * A page after another: only the rows past the last one of the page before, in the order (its
   * id, and with a value order its sort value). A page that follows a full one is part of a long
   * scan, which may be read another way than its first page.
   */
  after?: { id: string; value?: string };
  select: DocumentSelection;
  /**
   * With whole documents: those past this many bytes of them, as they add up in the query's order
   * by their stored sizes (DocumentRow.contentBytes), come without their content (null); the first
   * always comes with it. For a page whose documents' sizes are not known yet: a page of 32 of
   * 1 MB of `[{},{},…]` each was a gigabyte once parsed.
   */
  contentBudget?: number;
}

export interface DocumentRow {
  id: string;
  /** Unless `values` without `type`. */
  type?: string;
  /**
   * With `content`: the stored document (null past the query's contentBudget); with `paths`: the
   * array of the values selected.
   */
  content?: unknown;
  /** With a whole document: what it takes, as stored beside it (the larger of its text's length and its parse). */
  contentBytes?: number;
  /** With `values`: the encoded value per requested path (null where there is none). */
  values?: (string | null)[];
  /** With a value order: the encoded sort value. */
  sortValue?: string;
}

/** With the statement that answered it, as its engine runs it (for EXPLAIN). */
export type DocumentQueryResult = ({ rows: DocumentRow[] } | { count: number } | { numbers: NumberSummary }) & { sql: string };

export const ALL: DocumentCondition = { kind: 'all' };
export const NONE: DocumentCondition = { kind: 'none' };

/** The ids alone (and the sort value, in a value's order): what an index yields without reading a row of another table. */
export const IDS_ALONE: DocumentSelection = { kind: 'values', paths: [], type: false };

export function isIdsAlone(select: DocumentSelection): boolean {
  return select.kind === 'values' && select.paths.length === 0 && !select.type;
}

export const not = (condition: DocumentCondition): DocumentCondition =>
  condition.kind === 'all' ? NONE : condition.kind === 'none' ? ALL : condition.kind === 'not' ? condition.condition : { kind: 'not', condition };

export function and(conditions: readonly DocumentCondition[]): DocumentCondition {
  const parts = conditions.filter((c) => c.kind !== 'all');
  if (parts.some((c) => c.kind === 'none')) return NONE;
  return parts.length === 0 ? ALL : parts.length === 1 ? parts[0]! : { kind: 'and', conditions: parts };
}

export function or(conditions: readonly DocumentCondition[]): DocumentCondition {
  const parts = conditions.filter((c) => c.kind !== 'none');
  if (parts.some((c) => c.kind === 'all')) return ALL;
  return parts.length === 0 ? NONE : parts.length === 1 ? parts[0]! : { kind: 'or', conditions: parts };
}

/** The conjuncts of a condition, with nested ands flattened. */
export function conjuncts(condition: DocumentCondition): DocumentCondition[] {
  if (condition.kind === 'and') return condition.conditions.flatMap(conjuncts);
  return condition.kind === 'all' ? [] : [condition];
}

export const isEquality = (low: Bound | undefined, high: Bound | undefined): boolean =>
  low !== undefined && high !== undefined && low.inclusive && high.inclusive && low.value === high.value;
