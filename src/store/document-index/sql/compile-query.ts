// A DocumentQuery read by its access path, as SQL both engines run. The path's table comes first
// in FROM (CROSS JOIN fixes SQLite's join order, which has no statistics to choose by; PostgreSQL
// plans joins itself); the plan's filter becomes predicates on each row. The documents row and
// the entries row are joined by key where what is selected, ordered or checked reads them: a
// window of values from the reference index reads no documents row. Nothing is chosen here.
import { join, isIn, raw, sql, type Sql } from '../../sql-fragment.ts';
import type { AccessPath, IndexPlan } from '../access-path.ts';
import type { IndexDialect } from '../dialects/dialect.ts';
import { IDS_ALONE, isEquality, type Bound, type DocumentQuery, type DocumentSelection } from '../document-query.ts';
import { BESIDES_IDS, bounds, holds, predicate } from './conditions.ts';

export interface Scope {
  projectId: string;
  dataset: string;
}

/** A row as compiled statements return it. */
export interface RawRow {
  id: string;
  type?: string;
  content?: unknown;
  /** With whole documents: what they take (IndexDialect.contentBytes). */
  content_bytes?: number;
  sort_value?: string;
  n?: number;
  /** A sliced count's first statement: the id its slice ends at (QuerySlices). */
  slice_end?: string | null;
  /** A `numbers` selection's columns (the count of numbers is `n`). */
  others?: number | string;
  total?: number | string | null;
  least?: number | string | null;
  greatest?: number | string | null;
  magnitude?: number | string | null;
  fractions?: number | string | null;
  [column: `v${number}`]: string | null;
}

export interface CompiledQuery {
  statement: Sql;
  /** The names of the selected columns, in order. */
  columns: readonly string[];
  /** The statement's order in terms of its columns, for a batch that orders its rows again; null for an aggregate (in no order). */
  resultOrder: string | null;
  /** With a values selection: the column each path's value is read from. */
  valueColumns: readonly string[];
}

/** The rows an access path yields: a table aliased d (documents), e (entries) or x (an index), with its conditions. */
interface PathRows {
  table: Sql;
  alias: 'd' | 'e' | 'x';
  conditions: Sql[];
  /** The rows come in id order: one key of an index whose key ends with the id. */
  idOrdered?: boolean;
  /** The path whose value the rows hold (x.value). */
  valuePath?: string;
}

function documentRows(scope: Scope, condition?: Sql): PathRows {
  const conditions = [sql`d.project_id = ${scope.projectId}`, sql`d.dataset = ${scope.dataset}`];
  return { table: raw('documents d'), alias: 'd', conditions: condition ? [...conditions, condition] : conditions };
}

function valueRows(scope: Scope, path: string, low: Bound | undefined, high: Bound | undefined): PathRows {
  const conditions = [sql`x.project_id = ${scope.projectId}`, sql`x.dataset = ${scope.dataset}`, sql`x.path = ${path}`];
  if (low || high) conditions.push(bounds('x.value', low, high));
  return { table: raw('document_values x'), alias: 'x', conditions, valuePath: path, idOrdered: isEquality(low, high) };
}

function referenceRows(scope: Scope, ids: readonly string[]): PathRows {
  if (ids.length !== 1) {
    const table = sql`(SELECT DISTINCT project_id, dataset, id FROM document_references WHERE project_id = ${scope.projectId} AND dataset = ${scope.dataset} AND ${isIn('target_id', ids)}) x`;
    return { table, alias: 'x', conditions: [] };
  }
  const conditions = [sql`x.project_id = ${scope.projectId}`, sql`x.dataset = ${scope.dataset}`, sql`x.target_id = ${ids[0]}`];
  return { table: raw('document_references x'), alias: 'x', conditions, idOrdered: true };
}

type PathCompilers = { [K in AccessPath['kind']]: (path: Extract<AccessPath, { kind: K }>, scope: Scope, dialect: IndexDialect) => PathRows };

const PATH_ROWS: PathCompilers = {
  none: (_, scope) => documentRows(scope, raw('1 = 0')),
  'by-id': ({ ids }, scope, dialect) => documentRows(scope, predicate(dialect, 'd', { kind: 'id', ids })),
  'by-type': ({ types }, scope, dialect) => documentRows(scope, predicate(dialect, 'd', { kind: 'type', types })),
  'id-range': ({ low, high }, scope) => documentRows(scope, sql`(${bounds('d.id', low, high)})`),
  'full-scan': (_, scope) => documentRows(scope),
  references: ({ ids }, scope) => referenceRows(scope, ids),
  'value-range': ({ path, low, high }, scope) => valueRows(scope, path, low, high),
  'value-walk': ({ path, low, high }, scope) => valueRows(scope, path, low, high),
  'value-in': ({ path, values }, scope) => {
    const conditions = [sql`x.project_id = ${scope.projectId}`, sql`x.dataset = ${scope.dataset}`, sql`x.path = ${path}`, isIn('x.value', values)];
    return { table: raw('document_values x'), alias: 'x', conditions, valuePath: path, idOrdered: values.length === 1 };
  },
  'entries-walk': ({ shapes }, scope, dialect) => ({
    table: raw('document_entries e'),
    alias: 'e',
    conditions: [sql`e.project_id = ${scope.projectId}`, sql`e.dataset = ${scope.dataset}`, predicate(dialect, 'e', { kind: 'shape', hashes: shapes })],
  }),
};

const readsContent = (select: DocumentSelection) => select.kind === 'content' || select.kind === 'paths';

/**
 * Where a slice of rows ends, its last row included: in id order, the id an expression evaluates
 * to (a constant for the statement, so that it bounds the walk of the index rather than filter
 * each row to its end, in the order's direction: QuerySlices); walked up a path's value rows, a
 * value row's key (NumberSlices).
 */
export type Through = { kind: 'id'; id: Sql } | { kind: 'value'; key: ValueKey };

export function compileQuery(dialect: IndexDialect, scope: Scope, query: DocumentQuery, plan: IndexPlan, through?: Through, walked?: WalkedRows): CompiledQuery {
  const { select, order, after } = query;
  if (query.contentBudget !== undefined && readsContent(select)) {
    return withinContentBudget(compileQuery(dialect, scope, { ...query, contentBudget: undefined }, plan, through, walked), query.contentBudget);
  }
  if (readsContent(select) && order.kind === 'value' && query.limit !== null) return windowThenContent(dialect, scope, query, plan);
  const rows = walked
    ? { table: sql`(${walked.rows}) x`, alias: 'x' as const, conditions: [], valuePath: walked.path }
    : (PATH_ROWS[plan.path.kind] as (path: AccessPath, scope: Scope, dialect: IndexDialect) => PathRows)(plan.path, scope, dialect);
  const { filter } = plan;
  // The path's own value rows hold the value of their path: no entries row is needed to read it.
  const onPath = (path: string) => rows.valuePath === path;
  const sortedByPath = order.kind === 'value' && onPath(order.path);
  const joinsDocuments = rows.alias !== 'd' && (readsContent(select) || (select.kind === 'values' && select.type) || filter.some((part) => holds(part, ['type'])));
  const joinsEntries =
    rows.alias !== 'e' && ((select.kind === 'values' && select.paths.some((path) => !onPath(path))) || (order.kind === 'value' && !sortedByPath) || filter.some((part) => holds(part, ['value', 'contains', 'shape'])));
  // The alias whose id and scope columns the other tables and the predicates correlate with.
  const row = rows.alias === 'x' && joinsDocuments ? 'd' : rows.alias;
  // Bounds on ids (a page after an id, a slice) are on the path's own rows, and the tables joined
  // meet them by an opaque id: SQLite carried a bound through the join's equality and read the
  // joined table by that range instead of by key (a page of a value's documents read every
  // document past the bound for each of its rows).
  const boundsIds = through?.kind === 'id' || (after !== undefined && after.value === undefined);
  const bounded = boundsIds ? rows.alias : row;
  const joinedId = boundsIds ? dialect.opaque(`${rows.alias}.id`) : `${rows.alias}.id`;
  const direction = order.descending ? ' DESC' : '';
  // Ties of a path's own value rows are in the order of their ids, the key's last column.
  const orderBy =
    order.kind === 'value'
      ? `${sortedByPath ? 'x.value' : 'sort_value'}${direction}, ${sortedByPath ? 'x' : row}.id`
      : `${rows.idOrdered || boundsIds ? `${rows.alias}.id` : `${row}.id`}${direction}`;

  const { selected, valueColumns } =
    select.kind === 'numbers'
      ? summaryColumns(dialect, rows)
      : select.kind === 'firsts'
        ? firstColumns(rows)
        : columnsOf(dialect, query, { row, joinsDocuments: rows.alias === 'd' || joinsDocuments, sortedByPath, onPath });

  let from = rows.table;
  const where = [...rows.conditions];
  // Join conditions go to WHERE: PostgreSQL allows no ON with CROSS JOIN.
  if (joinsDocuments) {
    from = sql`${from} CROSS JOIN documents d`;
    where.push(raw(`d.project_id = ${rows.alias}.project_id`), raw(`d.dataset = ${rows.alias}.dataset`), raw(`d.id = ${joinedId}`));
  }
  if (joinsEntries) {
    const entries = dialect.joinEntries(row, query.limit !== null ? 'window' : 'all', row === rows.alias ? joinedId : `${row}.id`);
    from = sql`${from}${raw(entries.join)}`;
    where.push(...entries.conditions.map(raw));
  }
  // A value order leaves out the documents without a value at its path.
  if (order.kind === 'value' && !sortedByPath) where.push(sql`${dialect.entryValue(order.path)} IS NOT NULL`);
  if (after?.value !== undefined) {
    if (!sortedByPath) throw new Error('BUG: a page after a value, not walked by that value');
    // Ties are in id order either way. Walked up, the index's own order: a range of (value, id)
    // starts past the row itself (`x.value >= a AND (x.value > a OR x.id > i)` walked the tie from
    // its first row for every page). Walked down, a range of the value (downTheValues reads the
    // tie past the row).
    if (order.descending) where.push(sql`x.value <= ${after.value}`, sql`(x.value < ${after.value} OR x.id > ${after.id})`);
    else where.push(sql`(x.value, x.id) > (${after.value}, ${after.id})`);
  }
  for (const part of filter) where.push(predicate(dialect, row, part));
  if (after && after.value === undefined) where.push(sql`(${raw(bounded)}.id ${raw(order.descending ? '<' : '>')} ${after.id})`);
  if (through?.kind === 'id') {
    if (order.kind !== 'id') throw new Error('BUG: a slice of rows not in id order');
    where.push(sql`${raw(bounded)}.id ${raw(order.descending ? '>=' : '<=')} ${through.id}`);
  } else if (through?.kind === 'value') {
    if (!sortedByPath || order.descending) throw new Error('BUG: a slice of value rows not walked up their values');
    where.push(sql`(x.value, x.id) <= (${through.key.value}, ${through.key.id})`);
  }

  const columns = join(selected.map(([expression, name]) => sql`${expression} AS ${raw(name)}`));
  const body = sql`FROM ${from}${where.length > 0 ? sql` WHERE ${join(where, ' AND ')}` : raw('')}`;
  let statement = sql`SELECT ${columns} ${body}`;
  const aggregate = select.kind === 'count' || select.kind === 'numbers' || select.kind === 'firsts';
  if (select.kind === 'firsts') statement = sql`${statement} GROUP BY x.value`;
  else if (!aggregate) {
    const window = query.limit === null ? null : { limit: Math.max(0, Math.floor(query.limit)), offset: Math.max(0, Math.floor(query.offset)) };
    if (window === null && query.offset > 0) throw new Error('BUG: an offset without a limit');
    // Walked rows are a slice already, in their order: sorting them again costs the slice.
    if (window !== null && window.limit > 0 && sortedByPath && order.descending && !walked) statement = downTheValues(columns, body, window, after);
    else statement = sql`${statement} ORDER BY ${raw(orderBy)}${raw(window === null ? '' : ` LIMIT ${window.limit} OFFSET ${window.offset}`)}`;
  }
  const resultOrder = aggregate ? null : order.kind === 'value' ? `sort_value${direction}, id` : `id${direction}`;
  return { statement, columns: selected.map(([, name]) => name), resultOrder, valueColumns };
}

/**
 * A window walked down a path's value rows. Their index yields ties in id order walked up only:
 * walked down, the database sorts every row of a tied group that reaches into the window, and the
 * documents of an import share one `_updatedAt` (a page of the latest held the thread while their
 * whole group was sorted). Read instead: the window's rows walked down regardless of ties (kept
 * once, MATERIALIZED), of which those above the last one's value (the pivot) are in the window,
 * and the pivot's own rows walked up by id, starting past the page before's last row where that
 * has the pivot's value too. (A path's value rows always have conditions: their scope.)
 */
function downTheValues(columns: Sql, body: Sql, { limit, offset }: { limit: number; offset: number }, after: DocumentQuery['after']): Sql {
  const wanted = raw(String(limit + offset));
  const pivot = raw('(SELECT MIN(sort_value) FROM walked)');
  const past = after?.value === undefined ? raw('') : sql` AND x.id > (CASE WHEN ${pivot} = ${after.value} THEN ${after.id} ELSE ${''} END)`;
  const tied = sql`SELECT ${columns} ${body} AND x.value = ${pivot}${past} ORDER BY x.id LIMIT ${wanted}`;
  return sql`WITH walked AS MATERIALIZED (SELECT ${columns} ${body} ORDER BY x.value DESC LIMIT ${wanted}) SELECT * FROM walked WHERE sort_value > ${pivot} UNION ALL SELECT * FROM (${tied}) t ORDER BY sort_value DESC, id LIMIT ${raw(String(limit))} OFFSET ${raw(String(offset))}`;
}

/** Whether a path yields its rows in id order as its index stores them, so that a walk by id needs no sort. */
function walksInIdOrder(path: AccessPath): boolean {
  switch (path.kind) {
    case 'full-scan':
    case 'id-range':
    case 'entries-walk':
      return true;
    case 'by-type':
      return path.types.length === 1;
    case 'references':
      return path.ids.length === 1;
    case 'value-range':
    case 'value-walk':
      return isEquality(path.low, path.high);
    case 'value-in':
      return path.values.length === 1;
    case 'none':
    case 'by-id':
      return false;
  }
}

/**
 * A query read a slice of its access path's rows at a time, for an engine that reads on the
 * server's thread. A slice is some rows of the path (the rows its index yields, before the
 * filter), so that a statement reads at most that many however few of them match: a page of
 * posts without a value, or a count of those whose title matches a word, read every post in one
 * statement. `first(size)` answers the query over the first slice of `size` rows, whose end it
 * finds itself; `boundary(after, size)` finds the id of the last row of the slice of `size` rows
 * after id `after` (none: fewer rows are left), which a count's first statement tells as well;
 * `slice(after, through)` answers the query over the rows after `after` up to and including
 * `through` (to the end when null). Null where the path's rows do not come in id order (each slice
 * would sort every row left), or where a statement reads no more rows than it returns (no filter,
 * and not a count).
 */
export interface QuerySlices {
  first(size: number): CompiledQuery;
  boundary(after: string | null, size: number): CompiledQuery;
  slice(after: string | null, through: string | null): CompiledQuery;
}

export function compileSlices(dialect: IndexDialect, scope: Scope, query: DocumentQuery, plan: IndexPlan): QuerySlices | null {
  const { order } = query;
  // A count in a value's order is sliced in id order (DocumentIndexReader.inSlices).
  if (order.kind !== 'id' || !walksInIdOrder(plan.path)) return null;
  if (query.select.kind !== 'count' && (plan.filter.length === 0 || query.limit === null)) return null;
  const bare = query.after?.id ?? null;
  // The path's own ids, without the filter: an index alone is read. The entries rows are read
  // whole (their table is their index), so a walk of them is sliced by the dataset's documents,
  // one per entries row, on the documents' key.
  const driving: IndexPlan = { path: plan.path.kind === 'entries-walk' ? { kind: 'full-scan' } : plan.path, filter: [] };
  const ids = (after: string | null, offset: number, limit: number): CompiledQuery => {
    const rows = compileQuery(dialect, scope, { ...startingAfter(query, after), select: IDS_ALONE, offset, limit }, driving);
    return { ...rows, statement: sql`SELECT b.id AS id FROM (${rows.statement}) b`, columns: ['id'] };
  };
  return {
    // Through the last of the first slice's rows, or the last row if fewer are left (read only then):
    // never NULL but where no row is left. A count's first statement also says where its slice
    // ends (slice_end; NULL: it read to the end).
    first: (size) => {
      const last = sql`(${ids(bare, size - 1, 1).statement})`;
      const lastOfFewer = sql`(SELECT ${raw(order.descending ? 'MIN' : 'MAX')}(b.id) FROM (${ids(bare, 0, size).statement}) b)`;
      const within = compileQuery(dialect, scope, startingAfter(query, bare), plan, { kind: 'id', id: sql`COALESCE(${last}, ${lastOfFewer})` });
      if (query.select.kind !== 'count') return within;
      return { ...within, statement: sql`SELECT (${within.statement}) AS n, ${last} AS slice_end`, columns: ['n', 'slice_end'] };
    },
    boundary: (after, size) => ids(after, size - 1, 1),
    slice: (after, through) => compileQuery(dialect, scope, startingAfter(query, after), plan, through === null ? undefined : { kind: 'id', id: sql`${through}` }),
  };
}

/** A slice of a path's value rows, standing for the path's table (alias x) in a statement: its columns are those of document_values but `path`. */
interface WalkedRows {
  rows: Sql;
  path: string;
}

/** Where a page of a value walk starts: past this row (its id and encoded value). */
export type ValueKey = { id: string; value: string };

/**
 * A window walked in the order of a path's values, with a filter on each row, read a slice of the
 * path's value rows at a time (as QuerySlices reads rows in id order): `slice(after, size, limit)`
 * answers the window's first `limit` rows among the `size` value rows past `after` (from the start
 * when null), a statement that reads those rows and no more, however few of them match;
 * `boundary(after, size)` finds the last of them (none: fewer are left). Null where the window is
 * not such a walk, or reads no more rows than it returns (no filter), or its filter is on ids
 * alone. Values alone: a window of whole documents reads their content by id afterwards.
 */
export interface ValueSlices {
  slice(after: ValueKey | null, size: number, limit: number): CompiledQuery;
  boundary(after: ValueKey | null, size: number): CompiledQuery;
}

export function compileValueSlices(dialect: IndexDialect, scope: Scope, query: DocumentQuery, plan: IndexPlan): ValueSlices | null {
  const { order, select } = query;
  if (order.kind !== 'value' || plan.path.kind !== 'value-walk' || plan.path.path !== order.path) return null;
  // A filter on ids alone is checked on the value row itself, without a join: the cheapest of
  // checks, and the one a perspective adds (no drafts), which keeps nearly every row.
  if (!plan.filter.some((part) => holds(part, BESIDES_IDS))) return null;
  if (query.limit === null || select.kind !== 'values') return null;
  const path = plan.path;
  // The path's rows alone, in the window's order: an index read alone (walked down, split at its last value).
  const valueRows = (after: ValueKey | null, offset: number, limit: number) => pathRowsAfter(dialect, scope, query, path, after, offset, limit);
  return {
    slice: (after, size, limit) => {
      const rows = sql`SELECT ${scope.projectId} AS project_id, ${scope.dataset} AS dataset, w.sort_value AS value, w.id AS id FROM (${valueRows(after, 0, size).statement}) w`;
      return compileQuery(dialect, scope, { ...startingAfter(query, null), offset: 0, limit }, plan, undefined, { rows, path: order.path });
    },
    boundary: (after, size) => valueRows(after, size - 1, 1),
  };
}

/**
 * A summary of a path's numbers (a `numbers` selection) read a slice of the path's value rows at a
 * time, walked up their values, for an engine that reads on the server's thread (as QuerySlices
 * reads rows in id order): `boundary(after, size)` finds the last of the `size` value rows past
 * `after` (none: fewer are left); `slice(after, through)` summarises the rows past `after` up to
 * and including `through` (to the end when null). The slices' summaries add up to the whole's.
 * Null where the query is not such a summary.
 */
export interface NumberSlices {
  boundary(after: ValueKey | null, size: number): CompiledQuery;
  slice(after: ValueKey | null, through: ValueKey | null): CompiledQuery;
}

export function compileNumberSlices(dialect: IndexDialect, scope: Scope, query: DocumentQuery, plan: IndexPlan): NumberSlices | null {
  const { order } = query;
  if (query.select.kind !== 'numbers' || order.kind !== 'value' || order.descending || plan.path.kind !== 'value-walk' || plan.path.path !== order.path) return null;
  const path = plan.path;
  return {
    boundary: (after, size) => pathRowsAfter(dialect, scope, query, path, after, size - 1, 1),
    slice: (after, through) => compileQuery(dialect, scope, startingAfter(query, after), plan, through === null ? undefined : { kind: 'value', key: through }),
  };
}

/**
 * A window far down its rows (a large OFFSET), for an engine that reads on the server's thread,
 * where its path yields the rows in the window's order and nothing but ids is checked on them (a
 * filter that reads more is sliced already: QuerySlices, ValueSlices): one statement would read
 * every row the offset skips. `skip(after, rows)` finds the last of the next `rows` rows past
 * `after` (none: fewer are left), reading the path's index alone; `window(after, offset)` is the
 * window past `after` with what is left of its offset. Null for other windows.
 */
export interface OffsetSkips {
  skip(after: string | ValueKey | null, rows: number): CompiledQuery;
  window(after: string | ValueKey | null, offset: number): CompiledQuery;
}

export function compileOffsetSkips(dialect: IndexDialect, scope: Scope, query: DocumentQuery, plan: IndexPlan): OffsetSkips | null {
  const { order, limit } = query;
  if (limit === null || plan.filter.some((part) => holds(part, BESIDES_IDS))) return null;
  const inOrder = order.kind === 'id' ? walksInIdOrder(plan.path) : plan.path.kind === 'value-walk' && plan.path.path === order.path;
  if (!inOrder) return null;
  return {
    skip: (after, rows) => compileQuery(dialect, scope, { ...startingAfter(query, after), select: IDS_ALONE, offset: rows - 1, limit: 1 }, plan),
    window: (after, offset) => compileQuery(dialect, scope, { ...startingAfter(query, after), offset }, plan),
  };
}

/** A window of the value rows a walk of a path yields (ids and values, no filter: an index read alone), in the query's order past `after`. */
function pathRowsAfter(dialect: IndexDialect, scope: Scope, query: DocumentQuery, path: Extract<AccessPath, { kind: 'value-walk' }>, after: ValueKey | null, offset: number, limit: number): CompiledQuery {
  return compileQuery(dialect, scope, { ...startingAfter(query, after), select: IDS_ALONE, offset, limit }, { path, filter: [] });
}

/** The query with its rows after `after`, an id or (in a value's order) a row's id and value; from the start when null. */
function startingAfter(query: DocumentQuery, after: string | ValueKey | null): DocumentQuery {
  const rest = { ...query };
  delete rest.after;
  return after === null ? rest : { ...rest, after: typeof after === 'string' ? { id: after } : after };
}

/** 2^53: the first magnitude past the safe integers. */
const PAST_SAFE = 2 ** 53;

type Columns = { selected: [expression: Sql, name: string][]; valueColumns: string[] };

function assertValueRows(rows: PathRows, what: string): void {
  if (rows.alias !== 'x' || rows.valuePath === undefined) throw new Error(`BUG: ${what} not over a path's value rows`);
}

/** A `firsts` selection's columns, per group of equal values (GROUP BY x.value): the value, and the least id. */
function firstColumns(rows: PathRows): Columns {
  assertValueRows(rows, 'the first ids of values');
  return { selected: [[raw('x.value'), 'v0'], [raw('MIN(x.id)'), 'id']], valueColumns: ['v0'] };
}

/** A `numbers` selection's columns: over the value rows of a path, what NumberSummary holds. */
function summaryColumns(dialect: IndexDialect, rows: PathRows): Columns {
  assertValueRows(rows, 'a summary of numbers');
  const x = 'x.num';
  // A sum is used only while the magnitudes of its terms add up to at most 2^53 - 1 (math.ts):
  // past 2^53 its value does not matter.
  const columns: [string, string][] = [
    [`COUNT(${x})`, 'n'],
    [`COUNT(*) - COUNT(${x})`, 'others'],
    [dialect.boundedSum(x, PAST_SAFE), 'total'],
    [`MIN(${x})`, 'least'],
    [`MAX(${x})`, 'greatest'],
    [dialect.boundedSum(`ABS(${x})`, PAST_SAFE), 'magnitude'],
    [`SUM(CASE WHEN ${x} <> TRUNC(${x}) THEN 1 ELSE 0 END)`, 'fractions'],
  ];
  return { selected: columns.map(([expression, name]) => [raw(expression), name]), valueColumns: [] };
}

/** The selected columns as [expression, name], and with a values selection the column of each path's value. */
function columnsOf(
  dialect: IndexDialect,
  { select, order }: DocumentQuery,
  layout: { row: string; joinsDocuments: boolean; sortedByPath: boolean; onPath(path: string): boolean },
): Columns {
  if (select.kind === 'count') return { selected: [[raw('COUNT(*)'), 'n']], valueColumns: [] };
  const selected: [expression: Sql, name: string][] = [[raw(`${layout.row}.id`), 'id']];
  const valueColumns: string[] = [];
  // Ids alone (a slice's end, a window's ids) leave the type out, so that an index of ids is read alone.
  const idsAlone = select.kind === 'values' && !select.type && select.paths.length === 0;
  if (layout.joinsDocuments && !idsAlone) selected.push([raw('d.type'), 'type']);
  // Parts of documents are sized by their documents: a part can be all of one.
  if (readsContent(select)) selected.push([raw(dialect.contentBytes), 'content_bytes']);
  if (select.kind !== 'values') selected.push([raw(dialect.content(select)), 'content']);
  else {
    select.paths.forEach((path, i) => {
      // The value at the order's path is the sort value, selected once.
      if (order.kind === 'value' && path === order.path) return valueColumns.push('sort_value');
      selected.push([layout.onPath(path) ? raw('x.value') : dialect.entryValue(path), `v${i}`]);
      return valueColumns.push(`v${i}`);
    });
  }
  if (order.kind === 'value') selected.push([layout.sortedByPath ? raw('x.value') : dialect.entryValue(order.path), 'sort_value']);
  return { selected, valueColumns };
}

/**
 * `compiled`, a statement of whole documents, with the content of its rows past `budget` bytes of
 * them (by content_bytes, added up in the statement's order) left out: DocumentQuery.contentBudget.
 * PostgreSQL's window keeps the out-of-line content of the rows it holds as pointers, and reads
 * only what it sends.
 */
function withinContentBudget(compiled: CompiledQuery, budget: number): CompiledQuery {
  const order = (alias: string) =>
    compiled
      .resultOrder!.split(', ')
      .map((term) => `${alias}.${term}`)
      .join(', ');
  const columns = compiled.columns.map((name) =>
    name === 'content' ? `CASE WHEN r.running - r.content_bytes < ${Math.floor(budget)} THEN r.content END AS content` : `r.${name} AS ${name}`,
  );
  const statement = sql`SELECT ${raw(columns.join(', '))} FROM (SELECT q.*, SUM(q.content_bytes) OVER (ORDER BY ${raw(order('q'))} ROWS UNBOUNDED PRECEDING) AS running FROM (${compiled.statement}) q) r ORDER BY ${raw(order('r'))}`;
  return { ...compiled, statement };
}

/**
 * A window of whole documents in a value's order: the window's ids first, then their content.
 * Ties on the value are sorted by id, and the sort holds every row of a tied group that reaches
 * into the window: with the content in those rows, a page of posts by day read and copied every
 * post of the latest day.
 */
function windowThenContent(dialect: IndexDialect, scope: Scope, query: DocumentQuery, plan: IndexPlan): CompiledQuery {
  const ids = compileQuery(dialect, scope, { ...query, select: IDS_ALONE }, plan);
  const orderBy = `w.sort_value${query.order.descending ? ' DESC' : ''}, w.id`;
  const statement = sql`SELECT d.id AS id, d.type AS type, ${raw(dialect.contentBytes)} AS content_bytes, ${raw(dialect.content(query.select))} AS content, w.sort_value AS sort_value FROM (${ids.statement}) w CROSS JOIN documents d WHERE d.project_id = ${scope.projectId} AND d.dataset = ${scope.dataset} AND d.id = w.id ORDER BY ${raw(orderBy)}`;
  const columns = ['id', 'type', 'content_bytes', 'content', 'sort_value'];
  return { statement, columns, resultOrder: ids.resultOrder, valueColumns: [] };
}
