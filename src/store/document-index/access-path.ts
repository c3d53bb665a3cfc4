// How a DocumentQuery is read: which index yields its candidate rows (the access path), and which
// of its conditions are left to check on each row (the filter). Chosen here, and only here, from
// the query's conditions, order and window and from what is known of the data: counts of what a
// condition's index yields, the share of the dataset a type has, the dataset's shapes. Counts
// that are not known yet are asked for through IndexStatistics; the reader measures them and asks
// again (reader.ts), for a query alone as for one in a batch. sql/compile-query.ts writes the SQL.
import { conjuncts, isEquality, type Bound, type DocumentCondition, type DocumentQuery } from './document-query.ts';
import type { ShapeInfo } from './entries.ts';

export type AccessPath =
  /** A condition no document meets. */
  | { kind: 'none' }
  /** The documents of these ids (the documents table's key). */
  | { kind: 'by-id'; ids: readonly string[] }
  /** The documents of these types, in id order (documents_type_id). */
  | { kind: 'by-type'; types: readonly string[] }
  /** The documents whose ids lie within the bounds. */
  | { kind: 'id-range'; low?: Bound; high?: Bound }
  /** Every document of the dataset, in id order. */
  | { kind: 'full-scan' }
  /** The documents that reference one of the ids (document_references; one id: in id order). */
  | { kind: 'references'; ids: readonly string[] }
  /** The value rows of a path within the bounds (equal bounds: one key, in id order). */
  | { kind: 'value-range'; path: string; low?: Bound; high?: Bound }
  /** The value rows of a path equal to one of these encoded values (`slug.current in [...]`). */
  | { kind: 'value-in'; path: string; values: readonly string[] }
  /** The value rows of the query's order path, within the bounds, in that order: a window stops early. */
  | { kind: 'value-walk'; path: string; low?: Bound; high?: Bound }
  /** document_entries in id order, the rows of these shapes kept (a long scan of a type that is most of the dataset). */
  | { kind: 'entries-walk'; shapes: readonly string[] };

export interface IndexPlan {
  path: AccessPath;
  /** The conditions checked on each row the path yields: the query's others. */
  filter: readonly DocumentCondition[];
}

/** A condition whose index a count can compare with another's (the others drive by their nature). */
export type ProbedCondition = Extract<DocumentCondition, { kind: 'type' | 'idRange' | 'value' }>;

/** What is known of the data when a path is chosen. Counts are undefined until measured. */
export interface IndexStatistics {
  /** How many rows a condition's index yields, counted up to PROBE_CAP. */
  rowsOf(condition: ProbedCondition): number | undefined;
  /** The share of the dataset's documents that are of these types (0 in an empty dataset). */
  shareOf(types: readonly string[]): number | undefined;
  /** The dataset's shapes, where the query has read them. */
  readonly shapes: readonly ShapeInfo[] | null;
}

/** A condition yielding fewer rows than this drives a query rather than a larger one or an order. */
export const PROBE_CAP = 1000;
/** The share of the dataset a type must have for its long scans to walk the entries table. */
const MIN_ENTRIES_SHARE = 0.5;

/** How good a conjunct is at driving by its nature, lower is better; null when it cannot drive (shapes have no index). */
function rank(condition: DocumentCondition): number | null {
  switch (condition.kind) {
    case 'none':
    case 'id':
      return 0;
    case 'value':
      return isEquality(condition.low, condition.high) ? 1 : 5;
    case 'or':
      return valueKeys(condition) ? 1 : null;
    case 'references':
      return 2;
    case 'idRange':
      return 3;
    case 'type':
      return 4;
    default:
      return null;
  }
}

/** An `or` of equal values at one path (`in`): the path and the values, else null. */
function valueKeys(condition: DocumentCondition): { path: string; values: string[] } | null {
  if (condition.kind !== 'or') return null;
  const [first] = condition.conditions;
  if (first?.kind !== 'value') return null;
  const values: string[] = [];
  for (const part of condition.conditions) {
    if (part.kind !== 'value' || part.path !== first.path || !part.low || !isEquality(part.low, part.high)) return null;
    values.push(part.low.value);
  }
  return { path: first.path, values };
}

function isProbed(condition: DocumentCondition): condition is ProbedCondition {
  return condition.kind === 'type' || condition.kind === 'idRange' || (condition.kind === 'value' && !isEquality(condition.low, condition.high));
}

export function chooseAccessPath(query: DocumentQuery, statistics: IndexStatistics): IndexPlan {
  const parts = conjuncts(query.where);
  const walk = entriesWalk(query, parts, statistics);
  if (walk) return walk;
  const order = query.order;
  // A window (or a page) in a value's order may walk that path's values and stop at its end,
  // unless a condition picks a few documents by nature (ids, an equal value, references).
  const walkable = order.kind === 'value' && (query.limit !== null || query.after !== undefined) ? order.path : null;
  let driver = bestByRank(parts);
  const counted = smallestByCount(parts, walkable, statistics);
  if (counted !== undefined) driver = { index: counted, rank: 0 };
  if (walkable !== null && (!driver || driver.rank > 2 || query.after)) {
    const range = parts.find((part) => part.kind === 'value' && part.path === walkable);
    const bounds = range?.kind === 'value' ? boundsOf(range) : {};
    return withoutImpliedType({ path: { kind: 'value-walk', path: walkable, ...bounds }, filter: parts.filter((part) => part !== range) }, statistics);
  }
  if (!driver) return { path: { kind: 'full-scan' }, filter: parts };
  const chosen = parts[driver.index]!;
  const filter = parts.filter((_, i) => i !== driver.index);
  switch (chosen.kind) {
    case 'none':
      return { path: { kind: 'none' }, filter };
    case 'id':
      return { path: { kind: 'by-id', ids: chosen.ids }, filter };
    case 'type':
      return { path: { kind: 'by-type', types: chosen.types }, filter };
    case 'idRange':
      return { path: { kind: 'id-range', ...boundsOf(chosen) }, filter };
    case 'references':
      return { path: { kind: 'references', ids: chosen.ids }, filter };
    case 'value': {
      // Driven by the ordered path's values, the rows come in their order.
      const kind = order.kind === 'value' && order.path === chosen.path ? 'value-walk' : 'value-range';
      return withoutImpliedType({ path: { kind, path: chosen.path, ...boundsOf(chosen) }, filter }, statistics);
    }
    case 'or': {
      const keys = valueKeys(chosen)!;
      return withoutImpliedType({ path: { kind: 'value-in', path: keys.path, values: keys.values }, filter }, statistics);
    }
    default:
      throw new Error(`BUG: a ${chosen.kind} condition cannot drive`);
  }
}

function bestByRank(parts: readonly DocumentCondition[]): { index: number; rank: number } | null {
  let best: { index: number; rank: number } | null = null;
  parts.forEach((part, index) => {
    const r = rank(part);
    if (r !== null && (best === null || r < best.rank)) best = { index, rank: r };
  });
  return best;
}

/**
 * When several broad conditions could drive (a type and a range), or one beside an order the query
 * could walk instead, the one whose index yields fewest rows below PROBE_CAP drives: SQLite keeps
 * no statistics of values, and the statement fixes which index drives (the others are checked on
 * each row), so PostgreSQL's statistics cannot turn a type scan into a range scan. Undefined when
 * the choice is obvious, or nothing is small.
 */
function smallestByCount(parts: readonly DocumentCondition[], walkable: string | null, statistics: IndexStatistics): number | undefined {
  if (parts.some((part) => !isProbed(part) && part.kind !== 'not' && part.kind !== 'or')) return undefined;
  // A range on the walked path drives the walk itself: no alternative to it.
  const alternatives = parts.filter((part) => isProbed(part) && !(part.kind === 'value' && part.path === walkable));
  if (alternatives.length < (walkable === null ? 2 : 1)) return undefined;
  let best: number | undefined;
  let least = PROBE_CAP;
  parts.forEach((part, index) => {
    const rows = isProbed(part) ? (statistics.rowsOf(part) ?? PROBE_CAP) : PROBE_CAP;
    if (rows < least) {
      least = rows;
      best = index;
    }
  });
  return best;
}

/**
 * A long scan reading values of a type that is at least half of the dataset: the entries table
 * walked in id order, keeping the rows of the type's shapes, rather than the type's index joined to
 * an entries row per document; at that share the walk reads at most two rows per document of the
 * type, whatever the ids' layout. Long: a page after a full one, or a scan for a text
 * (`contains`), whose matches may be few and far between in the type's index.
 */
function entriesWalk(query: DocumentQuery, parts: readonly DocumentCondition[], statistics: IndexStatistics): IndexPlan | null {
  const select = query.select;
  // Ids alone come from the type's index (it holds them): only values need a row of entries.
  if (select.kind !== 'values' || select.type || select.paths.length === 0 || query.order.kind !== 'id') return null;
  if (query.after === undefined && !parts.some((part) => part.kind === 'contains')) return null;
  const typed = parts.filter((part) => part.kind === 'type');
  // Conditions an index answers better (ids, references, values) keep their path.
  const onEntriesRow = (part: DocumentCondition) => ['type', 'not', 'or', 'shape', 'contains'].includes(part.kind);
  if (typed.length !== 1 || !parts.every(onEntriesRow) || statistics.shapes === null) return null;
  const { types } = typed[0]!;
  if ((statistics.shareOf(types) ?? 0) < MIN_ENTRIES_SHARE) return null;
  const shapes = statistics.shapes.filter((shape) => types.includes(shape.type)).map((shape) => shape.hash);
  return { path: { kind: 'entries-walk', shapes }, filter: parts.filter((part) => part !== typed[0]) };
}

/**
 * Where the values of a path drive and only documents of the queried types have a scalar there (the
 * shapes tell), every row is of those types: the type is not checked (no documents row read for it).
 */
function withoutImpliedType(plan: IndexPlan, statistics: IndexStatistics): IndexPlan {
  const { path } = plan;
  if ((path.kind !== 'value-walk' && path.kind !== 'value-range' && path.kind !== 'value-in') || statistics.shapes === null) return plan;
  const present = statistics.shapes.filter((shape) => shape.paths.get(path.path) === 's').map((shape) => shape.type);
  const implied = (part: DocumentCondition) => part.kind === 'type' && present.every((type) => part.types.includes(type));
  return plan.filter.some(implied) ? { path, filter: plan.filter.filter((part) => !implied(part)) } : plan;
}

function boundsOf(condition: { low?: Bound; high?: Bound }): { low?: Bound; high?: Bound } {
  return { ...(condition.low ? { low: condition.low } : {}), ...(condition.high ? { high: condition.high } : {}) };
}
