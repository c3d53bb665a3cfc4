// DocumentQuery -> SQL that both engines run. The most selective condition drives the query: it is
// the first table of the FROM (CROSS JOIN fixes SQLite's join order, which has no statistics to
// choose by; PostgreSQL plans joins itself). The other conditions become predicates on the row,
// answered through the keys of the index tables and the document's document_entries row (its
// values by path, its shape). The documents table is joined only when its columns are needed: a
// window of values from the reference index reads no document row.
import { binaryJsonColumn, type Dialect } from '../sql.ts';
import { isPlainStep, type Bound, type DocumentCondition, type DocumentPath, type DocumentQuery, type DocumentSelection } from './document-query.ts';
import { TRUNCATED } from './values.ts';

export interface BuiltSql {
  sql: string;
  /** Every parameter is text. */
  params: string[];
  /** The ORDER BY expression list. */
  orderBy: string;
  /** The same order in terms of the selected columns, for callers that batch the statement. */
  resultOrder: string;
  /** The names of the selected columns, in order. */
  columns: string[];
}

type Driver =
  | { kind: 'documents' }
  /** document_entries in id order, the rows of a `shape` conjunct's hashes kept (chosen by the caller only). */
  | { kind: 'entries' }
  | { kind: 'values'; path: string; low?: Bound; high?: Bound }
  | { kind: 'references'; ids: readonly string[] };

/** The conjuncts of a condition, with nested ands flattened. */
export function conjuncts(condition: DocumentCondition): DocumentCondition[] {
  if (condition.kind === 'and') return condition.conditions.flatMap(conjuncts);
  return condition.kind === 'all' ? [] : [condition];
}

const isEquality = (low: Bound | undefined, high: Bound | undefined): boolean =>
  low !== undefined && high !== undefined && low.inclusive && high.inclusive && low.value === high.value;

/** How good a conjunct is at driving: lower is better; null when it cannot drive. */
function driverRank(condition: DocumentCondition): number | null {
  switch (condition.kind) {
    case 'none':
    case 'id':
      return 0;
    case 'value':
      return isEquality(condition.low, condition.high) ? 1 : 5;
    case 'references':
      return 2;
    case 'idRange':
      return 3;
    case 'type':
      return 4;
    default:
      // Shapes have no index of their own: they narrow the rows another condition finds.
      return null;
  }
}

/** Whether a condition reads a column of the documents table besides the id. */
function readsDocumentRow(condition: DocumentCondition): boolean {
  switch (condition.kind) {
    case 'type':
      return true;
    case 'not':
      return readsDocumentRow(condition.condition);
    case 'and':
    case 'or':
      return condition.conditions.some(readsDocumentRow);
    default:
      return false;
  }
}

/** Whether a condition reads the document's document_entries row (its values or its shape). */
function readsEntries(condition: DocumentCondition): boolean {
  switch (condition.kind) {
    case 'value':
    case 'contains':
    case 'shape':
      return true;
    case 'not':
      return readsEntries(condition.condition);
    case 'and':
    case 'or':
      return condition.conditions.some(readsEntries);
    default:
      return false;
  }
}

/** The value at `path` in a document_entries row aliased `alias`, with `?` for the path's parameter. */
function entryValue(dialect: Dialect, alias: string): string {
  // jsonb's text has the default collation; the index's order is that of "C".
  return dialect === 'postgres' ? `(${alias}.vals->>(?::text)) COLLATE "C"` : `json_extract(${alias}.vals, ?)`;
}

/** The parameter that `entryValue` reads `path` with. */
function entryKey(dialect: Dialect, path: string): string {
  // Indexed names hold no dot, quote or backslash (entries.ts): the quoted label needs no escapes.
  return dialect === 'postgres' ? path : `$."${path}"`;
}

class Builder {
  readonly params: string[] = [];
  readonly dialect: Dialect;
  /** The alias whose id and scope columns predicates correlate with. */
  row = 'd';

  constructor(dialect: Dialect) {
    this.dialect = dialect;
  }

  param(value: string): string {
    this.params.push(value);
    return '?';
  }

  list(values: readonly string[]): string {
    return values.map((value) => this.param(value)).join(', ');
  }

  bounds(column: string, low: Bound | undefined, high: Bound | undefined): string {
    if (isEquality(low, high)) return `${column} = ${this.param(low!.value)}`;
    const parts: string[] = [];
    if (low) parts.push(`${column} ${low.inclusive ? '>=' : '>'} ${this.param(low.value)}`);
    if (high) parts.push(`${column} ${high.inclusive ? '<=' : '<'} ${this.param(high.value)}`);
    return parts.length > 0 ? parts.join(' AND ') : '1 = 1';
  }

  /** The value at `path` of the row's document, from its document_entries row (alias e). */
  valueAt(path: string): string {
    const expression = entryValue(this.dialect, 'e');
    this.param(entryKey(this.dialect, path));
    return expression;
  }

  /** Whether the value at `path` lies within the bounds: false, never null, when there is none. */
  valueWithin(path: string, low: Bound | undefined, high: Bound | undefined): string {
    if (isEquality(low, high)) return `(${this.valueAt(path)} = ${this.param(low!.value)}) IS TRUE`;
    const parts: string[] = [];
    if (low) parts.push(`${this.valueAt(path)} ${low.inclusive ? '>=' : '>'} ${this.param(low.value)}`);
    if (high) parts.push(`${this.valueAt(path)} ${high.inclusive ? '<=' : '<'} ${this.param(high.value)}`);
    if (parts.length === 0) parts.push(`${this.valueAt(path)} IS NOT NULL`);
    return `(${parts.join(' AND ')}) IS TRUE`;
  }

  /**
   * Whether the string at `path` contains each text, compared without dots and with ASCII letters
   * lowered (SQLite's lower() and PostgreSQL's under the "C" collation lower ASCII only), or is
   * held only in part: the mark of a string cut short is replaced by every text, so that one
   * reading of the value answers both. Numbers and booleans, encoded as text too, may pass: this
   * only narrows.
   */
  valueContains(path: string, texts: readonly string[]): string {
    const position = this.dialect === 'postgres' ? 'strpos' : 'instr';
    const all = texts.map(
      (text) => `${position}(lower(replace(replace(${this.valueAt(path)}, ${this.param(TRUNCATED)}, ${this.param(texts.join(' '))}), '.', '')), ${this.param(text)}) > 0`,
    );
    return `(${all.join(' AND ')}) IS TRUE`;
  }

  /** The condition as a predicate on the row. */
  predicate(condition: DocumentCondition): string {
    const row = this.row;
    switch (condition.kind) {
      case 'all':
        return '1 = 1';
      case 'none':
        return '1 = 0';
      case 'id':
        return condition.ids.length === 0 ? '1 = 0' : `${row}.id IN (${this.list(condition.ids)})`;
      case 'idRange':
        return `(${this.bounds(`${row}.id`, condition.low, condition.high)})`;
      case 'type':
        return condition.types.length === 0 ? '1 = 0' : `d.type IN (${this.list(condition.types)})`;
      case 'references':
        if (condition.ids.length === 0) return '1 = 0';
        return `EXISTS (SELECT 1 FROM document_references r WHERE r.project_id = ${row}.project_id AND r.dataset = ${row}.dataset AND r.target_id IN (${this.list(condition.ids)}) AND r.id = ${row}.id)`;
      case 'value':
        return this.valueWithin(condition.path, condition.low, condition.high);
      case 'contains':
        return this.valueContains(condition.path, condition.texts);
      case 'shape':
        return condition.hashes.length === 0 ? '1 = 0' : `e.shape IN (${this.list(condition.hashes)})`;
      case 'not':
        return `NOT (${this.predicate(condition.condition)})`;
      case 'and':
        return condition.conditions.length === 0 ? '1 = 1' : `(${condition.conditions.map((c) => this.predicate(c)).join(' AND ')})`;
      case 'or':
        return condition.conditions.length === 0 ? '1 = 0' : `(${condition.conditions.map((c) => this.predicate(c)).join(' OR ')})`;
    }
  }
}

function chooseDriver(query: DocumentQuery, parts: DocumentCondition[]): { driver: Driver; rest: DocumentCondition[] } {
  let best = -1;
  let bestRank = Number.POSITIVE_INFINITY;
  parts.forEach((part, i) => {
    const rank = driverRank(part);
    if (rank !== null && rank < bestRank) {
      best = i;
      bestRank = rank;
    }
  });
  // A shape conjunct drives only when the caller asks: walking the entries table pays when most of
  // its rows have those shapes, which only the caller can tell (ScanExecution, by the type's share).
  if (query.driver !== undefined && parts[query.driver]?.kind === 'shape') return { driver: { kind: 'entries' }, rest: parts };
  if (query.driver !== undefined) {
    best = query.driver;
    bestRank = query.driver < 0 ? Number.POSITIVE_INFINITY : 0;
  }
  const order = query.order;
  // With a window on a value order, walking that path's values in order and stopping at the
  // window's end beats collecting a large set to sort, unless an equality picks a few documents.
  if (order.kind === 'value' && query.limit !== null && bestRank > 2) {
    // A range on the ordered path narrows the walk; any other stays a predicate.
    const range = parts.findIndex((part) => part.kind === 'value' && part.path === order.path);
    const bounds: { low?: Bound; high?: Bound } = range >= 0 ? (parts[range] as Extract<DocumentCondition, { kind: 'value' }>) : {};
    return {
      driver: { kind: 'values', path: order.path, ...(bounds.low ? { low: bounds.low } : {}), ...(bounds.high ? { high: bounds.high } : {}) },
      rest: parts.filter((_, i) => i !== range),
    };
  }
  if (best < 0) return { driver: { kind: 'documents' }, rest: parts };
  const chosen = parts[best]!;
  const rest = parts.filter((_, i) => i !== best);
  switch (chosen.kind) {
    case 'value':
      return { driver: { kind: 'values', path: chosen.path, ...(chosen.low ? { low: chosen.low } : {}), ...(chosen.high ? { high: chosen.high } : {}) }, rest };
    case 'references':
      return { driver: { kind: 'references', ids: chosen.ids }, rest };
    default:
      // Conditions on the documents table itself: its own indexes serve them.
      return { driver: { kind: 'documents' }, rest: parts };
  }
}

/** The conjuncts left to check, without a `type` that the driving path's values imply (see DocumentQuery.typesAt). */
function withoutImpliedType(query: DocumentQuery, driver: Driver, rest: DocumentCondition[]): DocumentCondition[] {
  const present = driver.kind === 'values' ? query.typesAt?.get(driver.path) : undefined;
  if (!present) return rest;
  return rest.filter((part) => !(part.kind === 'type' && present.every((type) => part.types.includes(type))));
}

/**
 * The documents row's content as selected: whole, or the values at a few paths (a page of posts
 * without their bodies, a body's first line without the rest: less to turn into text and to parse).
 */
function contentColumn(dialect: Dialect, select: DocumentSelection): string {
  if (select.kind !== 'paths') return binaryJsonColumn(dialect, 'd.content');
  if (dialect === 'sqlite') return `json_array(${select.paths.map((path) => valueAtPath(dialect, 'd.content', path)).join(', ')})`;
  if (select.paths.length === 1) return `jsonb_build_array(${valueAtPath(dialect, 'd.content', select.paths[0]!)})`;
  // Each operator on a compressed jsonb decompresses it: several paths read a copy decompressed
  // once (a page of 20 posts, three paths: about a quarter less time).
  const values = select.paths.map((path) => valueAtPath(dialect, 'c', path)).join(', ');
  return `(SELECT jsonb_build_array(${values}) FROM (SELECT d.content || '{}'::jsonb AS c OFFSET 0) decompressed)`;
}

/** The JSON value at a path of a document, SQL NULL where there is none. */
function valueAtPath(dialect: Dialect, document: string, path: DocumentPath): string {
  if (!path.every(isPlainStep)) {
    throw new Error('BUG: a selected path that is not plain names and indexes');
  }
  if (dialect === 'postgres') {
    if (path.every((step) => typeof step === 'string')) return `${document}${path.map((step) => `->'${step}'`).join('')}`;
    // `->` with an integer reads a scalar as an array of itself ('"abc"'->0 is "abc"); a strict
    // jsonpath reads elements of arrays only, and attributes of objects only, as GROQ does.
    const jsonPath = `strict $${path.map((step) => (typeof step === 'number' ? `[${step}]` : `."${step}"`)).join('')}`;
    return `jsonb_path_query_first(${document}, '${jsonPath}', '{}', true)`;
  }
  return `(${document}->'$${path.map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`)).join('')}')`;
}

const readsContent = (select: DocumentSelection) => select.kind === 'content' || select.kind === 'paths';

export function buildQuerySql(dialect: Dialect, projectId: string, dataset: string, query: DocumentQuery): BuiltSql {
  if (readsContent(query.select) && query.order.kind === 'value' && query.limit !== null) return windowThenContent(dialect, projectId, dataset, query);
  const b = new Builder(dialect);
  const select = query.select;
  const chosen = chooseDriver(query, conjuncts(query.where));
  const driver = chosen.driver;
  const rest = withoutImpliedType(query, driver, chosen.rest);
  // The driving index row holds the value of its own path: no entries row is needed to select it.
  const fromDriver = (path: string) => driver.kind === 'values' && driver.path === path;
  const joinsDocuments =
    driver.kind === 'documents' || readsContent(select) || (select.kind === 'values' && select.type) || rest.some(readsDocumentRow);
  const entriesDriven = driver.kind === 'entries';
  // The alias of the driving table's rows, which the other tables join by key.
  const driving = entriesDriven ? 'e' : 'x';
  b.row = entriesDriven ? 'e' : joinsDocuments ? 'd' : 'x';
  const order = query.order;
  const valueOrder = order.kind === 'value';
  // The values the order reads: the driver's own when it walks that path, else the entries row's.
  const sortedByDriver = valueOrder && driver.kind === 'values' && driver.path === order.path;
  const joinsEntries =
    !entriesDriven && ((select.kind === 'values' && select.paths.some((path) => !fromDriver(path))) || (valueOrder && !sortedByDriver) || rest.some(readsEntries));
  const sortColumn = valueOrder ? (sortedByDriver ? 'x.value' : 'sort_value') : '';
  const direction = order.descending ? ' DESC' : '';
  // A driver that yields one key's rows in id order (a referenced id, an equal value) is walked in
  // that order, so that a window stops early instead of sorting every candidate.
  const idOrderedDriver =
    (driver.kind === 'references' && driver.ids.length === 1) || (driver.kind === 'values' && isEquality(driver.low, driver.high));
  const orderBy = valueOrder ? `${sortColumn}${direction}, ${b.row}.id` : `${idOrderedDriver ? 'x.id' : `${b.row}.id`}${direction}`;

  const selected: [expression: string, name: string][] = [];
  if (select.kind === 'count') {
    selected.push(['COUNT(*)', 'n']);
  } else {
    selected.push([`${b.row}.id`, 'id']);
    if (joinsDocuments) selected.push(['d.type', 'type']);
    if (select.kind !== 'values') selected.push([contentColumn(dialect, select), 'content']);
    else {
      select.paths.forEach((path, i) => {
        // The value at the order's path is the sort value, selected once (sortedValue()).
        if (!sortedValue(query, i)) selected.push([fromDriver(path) ? 'x.value' : b.valueAt(path), `v${i}`]);
      });
    }
    if (valueOrder) selected.push([sortedByDriver ? sortColumn : b.valueAt(order.path), 'sort_value']);
  }
  const columns = selected.map(([expression, name]) => `${expression} AS ${name}`).join(', ');

  // Placeholders are numbered in text order: the FROM clause's come before the WHERE clause's.
  // Join conditions go to WHERE: PostgreSQL allows no ON with CROSS JOIN.
  let from: string;
  switch (driver.kind) {
    case 'documents':
      from = 'documents d';
      break;
    case 'entries':
      from = 'document_entries e';
      break;
    case 'values':
      from = 'document_values x';
      break;
    case 'references':
      from =
        driver.ids.length === 1
          ? 'document_references x'
          : `(SELECT DISTINCT project_id, dataset, id FROM document_references WHERE project_id = ${b.param(projectId)} AND dataset = ${b.param(dataset)} AND target_id IN (${b.list(driver.ids)})) x`;
      break;
  }
  if (driver.kind !== 'documents' && joinsDocuments) from += ' CROSS JOIN documents d';
  // PostgreSQL hash-joins a window of candidates (a page of a scan) to every entries row of the
  // dataset, a full scan per page (sums over 1M documents took 22 s); a window takes each
  // candidate's entries row by its key instead, as SQLite's nested loop does. OFFSET 0 keeps the
  // planner from flattening the subquery back into a join.
  const entriesByKey = joinsEntries && dialect === 'postgres' && query.limit !== null;
  if (entriesByKey) {
    from += ` CROSS JOIN LATERAL (SELECT * FROM document_entries e WHERE e.project_id = ${b.row}.project_id AND e.dataset = ${b.row}.dataset AND e.id = ${b.row}.id OFFSET 0) e`;
  } else if (joinsEntries) {
    from += ' CROSS JOIN document_entries e';
  }
  const where: string[] = [];
  switch (driver.kind) {
    case 'documents':
      where.push(`d.project_id = ${b.param(projectId)}`, `d.dataset = ${b.param(dataset)}`);
      break;
    case 'entries':
      where.push(`e.project_id = ${b.param(projectId)}`, `e.dataset = ${b.param(dataset)}`);
      break;
    case 'values':
      where.push(`x.project_id = ${b.param(projectId)}`, `x.dataset = ${b.param(dataset)}`, `x.path = ${b.param(driver.path)}`);
      if (driver.low || driver.high) where.push(b.bounds('x.value', driver.low, driver.high));
      break;
    case 'references':
      if (driver.ids.length === 1) where.push(`x.project_id = ${b.param(projectId)}`, `x.dataset = ${b.param(dataset)}`, `x.target_id = ${b.param(driver.ids[0]!)}`);
      break;
  }
  if (driver.kind !== 'documents' && joinsDocuments) where.push(`d.project_id = ${driving}.project_id`, `d.dataset = ${driving}.dataset`, `d.id = ${driving}.id`);
  if (joinsEntries && !entriesByKey) where.push(`e.project_id = ${b.row}.project_id`, `e.dataset = ${b.row}.dataset`, `e.id = ${b.row}.id`);
  // A value order leaves out the documents without a value at its path.
  if (valueOrder && !sortedByDriver) where.push(`${b.valueAt(order.path)} IS NOT NULL`);
  if (query.after) {
    if (!sortedByDriver) throw new Error('BUG: a page after a value, not walked by that value');
    // Ties are in id order either way (ORDER BY below). The bound on the value alone keeps the
    // walk a range of the index on both engines.
    const [reach, past] = order.descending ? ['<=', '<'] : ['>=', '>'];
    where.push(`x.value ${reach} ${b.param(query.after.value)}`, `(x.value ${past} ${b.param(query.after.value)} OR x.id > ${b.param(query.after.id)})`);
  }
  for (const part of rest) where.push(b.predicate(part));

  let sql = `SELECT ${columns} FROM ${from}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
  if (select.kind !== 'count') {
    sql += ` ORDER BY ${orderBy}`;
    if (query.limit !== null) sql += ` LIMIT ${Math.max(0, Math.floor(query.limit))} OFFSET ${Math.max(0, Math.floor(query.offset))}`;
    else if (query.offset > 0) throw new Error('BUG: an offset without a limit');
  }
  const resultOrder = valueOrder ? `sort_value${direction}, id` : `id${direction}`;
  return { sql, params: b.params, orderBy, resultOrder, columns: selected.map(([, name]) => name) };
}

/** Whether the i-th path of a values selection is the order's path, whose value is the row's sort value. */
export function sortedValue(query: DocumentQuery, i: number): boolean {
  return query.select.kind === 'values' && query.order.kind === 'value' && query.select.paths[i] === query.order.path;
}

/**
 * A window of whole documents in a value's order: the window's ids first, then their content.
 * Ties on the value are sorted by id, and the sort holds every row of a tied group that reaches
 * into the window: with the content in those rows, a page of posts by day read and copied every
 * post of the latest day (at 1M documents, about 250 bodies for a page of 20).
 */
function windowThenContent(dialect: Dialect, projectId: string, dataset: string, query: DocumentQuery): BuiltSql {
  const ids = buildQuerySql(dialect, projectId, dataset, { ...query, select: { kind: 'values', paths: [], type: false } });
  const b = new Builder(dialect);
  b.params.push(...ids.params);
  const direction = query.order.descending ? ' DESC' : '';
  const orderBy = `w.sort_value${direction}, w.id`;
  const sql =
    `SELECT d.id AS id, d.type AS type, ${contentColumn(dialect, query.select)} AS content, w.sort_value AS sort_value ` +
    `FROM (${ids.sql}) w CROSS JOIN documents d WHERE d.project_id = ${b.param(projectId)} AND d.dataset = ${b.param(dataset)} AND d.id = w.id ORDER BY ${orderBy}`;
  return { sql, params: b.params, orderBy, resultOrder: ids.resultOrder, columns: ['id', 'type', 'content', 'sort_value'] };
}

/** Two counts: the documents of these types (c0) and all documents (c1) of a dataset. */
export function buildTypeShareSql(dialect: Dialect, projectId: string, dataset: string, types: readonly string[]): BuiltSql {
  const b = new Builder(dialect);
  const ofTypes = `SELECT COUNT(*) FROM documents d WHERE d.project_id = ${b.param(projectId)} AND d.dataset = ${b.param(dataset)} AND d.type IN (${b.list(types)})`;
  const all = `SELECT COUNT(*) FROM documents d WHERE d.project_id = ${b.param(projectId)} AND d.dataset = ${b.param(dataset)}`;
  return { sql: `SELECT (${ofTypes}) AS c0, (${all}) AS c1`, params: b.params, orderBy: '', resultOrder: '', columns: ['c0', 'c1'] };
}

/** Conjuncts whose selectivity a probe can tell apart (the others drive by their nature). */
export function isProbed(condition: DocumentCondition): boolean {
  switch (condition.kind) {
    case 'type':
    case 'idRange':
      return true;
    case 'value':
      return !isEquality(condition.low, condition.high);
    default:
      return false;
  }
}

/**
 * One statement counting, up to `cap`, the rows each condition's index yields: which of them is
 * small enough to drive the query. (PostgreSQL keeps statistics for this; SQLite does not.)
 */
export function buildProbeSql(dialect: Dialect, projectId: string, dataset: string, conditions: readonly DocumentCondition[], cap: number): BuiltSql {
  const b = new Builder(dialect);
  const probes = conditions.map((condition) => {
    let source: string;
    switch (condition.kind) {
      case 'type':
        source = `documents d WHERE d.project_id = ${b.param(projectId)} AND d.dataset = ${b.param(dataset)} AND d.type IN (${b.list(condition.types)})`;
        break;
      case 'idRange':
        source = `documents d WHERE d.project_id = ${b.param(projectId)} AND d.dataset = ${b.param(dataset)} AND ${b.bounds('d.id', condition.low, condition.high)}`;
        break;
      case 'value':
        source = `document_values x WHERE x.project_id = ${b.param(projectId)} AND x.dataset = ${b.param(dataset)} AND x.path = ${b.param(condition.path)} AND ${b.bounds('x.value', condition.low, condition.high)}`;
        break;
      default:
        source = 'documents d WHERE 1 = 0';
    }
    return `(SELECT COUNT(*) FROM (SELECT 1 FROM ${source} LIMIT ${cap}) p)`;
  });
  return { sql: `SELECT ${probes.map((probe, i) => `${probe} AS c${i}`).join(', ')}`, params: b.params, orderBy: '', resultOrder: '', columns: probes.map((_, i) => `c${i}`) };
}
