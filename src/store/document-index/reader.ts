import { setImmediate as nextTurn } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import type { NumberSummary } from '../../groq/index.ts';
import { sqlDialect } from '../dialects/dialect.ts';
import type { SqlExecutor } from '../sql.ts';
import { compileSql, isIn, sql } from '../sql-fragment.ts';
import { chooseAccessPath, type IndexPlan, type IndexStatistics } from './access-path.ts';
import { indexDialect, type IndexDialect } from './dialects/dialect.ts';
import { ALL, IDS_ALONE, isIdsAlone, type DocumentQuery, type DocumentQueryResult, type DocumentRow } from './document-query.ts';
import { parseShapePaths, type ShapeInfo } from './entries.ts';
import { compileCounts, type Count } from './sql/compile-counts.ts';
import { compileNumberSlices, compileOffsetSkips, compileQuery, compileSlices, compileValueSlices, type CompiledQuery, type RawRow, type Scope, type ValueKey } from './sql/compile-query.ts';

/** Windows of at most this many rows, from the first, are planned once (StatementOptions.planOnce). */
const PLAN_ONCE_LIMIT = 100;
/**
 * How long a count is used again. Counts only choose the plan, never change a result, so a stale
 * count costs at most a slower plan for this long; a repeated query saves a statement (a round
 * trip on PostgreSQL).
 */
const COUNT_TTL_MS = 10_000;
const COUNTS_KEPT = 1000;
/** Counts measured by one statement at most (PostgreSQL selects at most 1,664 columns). */
const COUNTS_PER_STATEMENT = 500;
/** Rows of its access path a statement reads at most where the database reads on the server's thread (inSlices). */
const SLICE_ROWS = 5_000;
/**
 * A slice of an index read alone (a summary's value rows, the rows an offset skips), as a multiple
 * of sliceRows: such a statement reads a row for much less than one that joins it to other
 * tables or sends it to this thread.
 */
const INDEX_SLICE_FACTOR = 4;
/** The first slice's rows (inSlices). */
const FIRST_SLICE_ROWS = 256;

const countKey = (scope: Scope, count: Count) => JSON.stringify([scope.projectId, scope.dataset, count]);

/** A query, and the dataset's shapes where its caller read them (access-path.ts chooses by them too). */
export interface AskedQuery {
  query: DocumentQuery;
  shapes: readonly ShapeInfo[] | null;
}

/** What the query planner reads from the document index (see README.md). */
export class DocumentIndexReader {
  private readonly db: SqlExecutor;
  private readonly dialect: IndexDialect;
  private readonly counts: LRUCache<string, number>;
  private readonly sliceRows: number;

  /** `sliceRows`: rows of its access path a statement reads at most where the database reads on this thread. */
  constructor(db: SqlExecutor, now: () => number = performance.now.bind(performance), counts?: LRUCache<string, number>, sliceRows = SLICE_ROWS) {
    this.db = db;
    this.dialect = indexDialect(db.dialect);
    this.counts = counts ?? new LRUCache({ max: COUNTS_KEPT, ttl: COUNT_TTL_MS, ttlResolution: 0, perf: { now } });
    this.sliceRows = sliceRows;
  }

  /** This reader on another executor of the same database (one that counts statements), sharing the counts. */
  on(db: SqlExecutor): DocumentIndexReader {
    return new DocumentIndexReader(db, undefined, this.counts, this.sliceRows);
  }

  /** Whether the database reads beside this thread, so that a page asked for ahead is read meanwhile. */
  get readsOffThread(): boolean {
    return sqlDialect(this.db.dialect).readsOffThread;
  }

  /** The statement a query would run by the counts known now (none is measured), as its engine runs it. */
  describe(projectId: string, dataset: string, query: DocumentQuery, shapes: readonly ShapeInfo[] | null = null): { sql: string; params: readonly unknown[] } {
    const scope = { projectId, dataset };
    const { text, params } = this.compile(compileQuery(this.dialect, scope, query, chooseAccessPath(query, this.statistics(scope, shapes))));
    return { sql: text, params };
  }

  async query(projectId: string, dataset: string, query: DocumentQuery, shapes: readonly ShapeInfo[] | null = null): Promise<DocumentQueryResult> {
    return (await this.queryMany(projectId, dataset, [{ query, shapes }]))[0]!;
  }

  /**
   * Several queries at once, each read by the path chosen for it as it would be alone. Those that
   * compile to one text (a subquery per document of a page: the same filter with another `^._id`)
   * run as one statement over their parameters (IndexDialect.runBatch).
   */
  async queryMany(projectId: string, dataset: string, asked: readonly AskedQuery[]): Promise<DocumentQueryResult[]> {
    const scope = { projectId, dataset };
    const queries = asked.map(({ query }) => query);
    const plans = await this.plan(scope, asked);
    const compiled = queries.map((query, i) => compileQuery(this.dialect, scope, query, plans[i]!));
    const texts = compiled.map((query) => this.compile(query).text);
    const groups = new Map<string, number[]>();
    texts.forEach((text, i) => {
      const members = groups.get(text);
      if (members) members.push(i);
      else groups.set(text, [i]);
    });
    const results = new Array<DocumentQueryResult>(queries.length);
    for (const members of groups.values()) {
      const first = members[0]!;
      const query = queries[first]!;
      let perQuery: RawRow[][];
      if (members.length === 1) {
        // A window of a few rows (a lookup, a page of posts) walks an index by key whatever the values;
        // a scan's pages, counts and unbounded queries are planned for theirs. A window further down
        // has its OFFSET in its text: each page of a listing would take a prepared statement's place.
        const planOnce = query.limit !== null && query.limit <= PLAN_ONCE_LIMIT && query.offset === 0;
        const plan = plans[first]!;
        const sliced = this.readsOffThread
          ? null
          : ((await this.inSlices(scope, query, plan, planOnce)) ??
            (await this.inValueSlices(scope, query, plan)) ??
            (await this.inNumberSlices(scope, query, plan)) ??
            (await this.pastSkippedOffset(scope, query, plan)));
        if (sliced) {
          results[first] = sliced;
          continue;
        }
        perQuery = [await this.db.all<RawRow>(compiled[first]!.statement, [], { planOnce })];
      } else {
        perQuery = await this.dialect.runBatch(this.db, members.map((i) => compiled[i]!));
      }
      members.forEach((i, k) => (results[i] = toResult(queries[i]!, compiled[i]!, perQuery[k]!, texts[i]!)));
    }
    return results;
  }

  /**
   * A count or a window on an engine that reads on the server's thread, read a slice of its access
   * path's rows per statement with the event loop free between them (compileSlices): one
   * statement over a million rows would hold every other request. Slices start small, so that a
   * window the first rows fill costs little more than one statement, and double up to sliceRows;
   * a window's slice is never smaller than what it still wants (a page is bounded by its size).
   * Null where the query is read in one statement.
   */
  private async inSlices(scope: Scope, query: DocumentQuery, plan: IndexPlan, planOnce: boolean): Promise<DocumentQueryResult | null> {
    const counting = query.select.kind === 'count';
    // A count in a value's order counts the documents with a value there: the same count in id
    // order with that as a condition, sliced as any other (it was one statement over the type).
    if (counting && query.order.kind === 'value') {
      const valued: IndexPlan = { ...plan, filter: [...plan.filter, { kind: 'value', path: query.order.path }] };
      return this.inSlices(scope, { ...query, order: { kind: 'id', descending: false } }, valued, planOnce);
    }
    // Each slice's window starts at its first row: what the offset skips is skipped here.
    const wanted = query.limit === null ? null : query.offset + query.limit;
    const slices = compileSlices(this.dialect, scope, wanted === null ? query : { ...query, offset: 0, limit: wanted }, plan);
    if (!slices) return null;
    // A window far down that reads more than ids skips its offset reading ids alone (each slice
    // read whole documents for rows it dropped), then reads the window past the last row skipped.
    if (query.limit !== null && query.offset >= this.sliceRows && !isIdsAlone(query.select)) {
      const skipped = await this.inSlices(scope, { ...query, select: IDS_ALONE, offset: query.offset - 1, limit: 1 }, plan, false);
      if (skipped === null || !('rows' in skipped)) throw new Error('BUG: the ids of a window not read in slices');
      const [last] = skipped.rows;
      if (!last) return { rows: [], sql: skipped.sql };
      return this.inSlices(scope, { ...query, offset: 0, after: { id: last.id } }, plan, false);
    }
    const all = (compiled: CompiledQuery, once = false) => this.db.all<RawRow>(compiled.statement, [], { planOnce: once });
    const window = new SlicedWindow(query);
    let size = window.sized(Math.min(FIRST_SLICE_ROWS, this.sliceRows));
    const first = slices.first(size);
    const sql = this.compile(first).text;
    let count = 0;
    const boundary = async (after: string | null) => (await all(slices.boundary(after, size)))[0]?.id ?? null;
    // Where the statement's slice ended (none: it read to the end of the rows).
    let end: string | null;
    if (counting) {
      const [row] = await all(first, planOnce);
      count += Number(row?.n ?? 0);
      end = row?.slice_end ?? null;
    } else {
      window.take(await all(first, planOnce));
      end = window.full ? null : await boundary(query.after?.id ?? null);
    }
    while (end !== null && !window.full) {
      const after = end;
      size = window.sized(Math.min(size * 2, this.sliceRows));
      await nextTurn();
      end = await boundary(after);
      if (!counting) window.take(await all(slices.slice(after, end)));
      // Without a filter, every row of a whole slice is counted.
      else if (plan.filter.length === 0 && end !== null) count += size;
      else count += Number((await all(slices.slice(after, end)))[0]?.n ?? 0);
    }
    if (counting) return { count, sql };
    return toResult(query, first, window.rows, sql);
  }

  /**
   * A window walked in a path's value order with a filter, on an engine that reads on the server's
   * thread: a slice of the path's value rows per statement (compileValueSlices), as inSlices reads
   * rows in id order; `!defined(views)` in the order of `publishedAt` read every post in one
   * statement when none matched. Whole documents are read by id once their window is known. Null
   * where the query is read in one statement.
   */
  private async inValueSlices(scope: Scope, query: DocumentQuery, plan: IndexPlan): Promise<DocumentQueryResult | null> {
    const ofValues = query.select.kind === 'values' ? query : { ...query, select: IDS_ALONE };
    const slices = compileValueSlices(this.dialect, scope, ofValues, plan);
    // A page in a value's order starts past a row's value and id (never an id alone).
    if (!slices || query.limit === null || (query.after && query.after.value === undefined)) return null;
    const window = new SlicedWindow(query);
    let after: ValueKey | null = query.after?.value === undefined ? null : { id: query.after.id, value: query.after.value };
    // A value row of a slice is walked, kept and then joined to what its filter reads: a fourth
    // of an id slice's rows holds the thread about as long.
    const most = Math.max(1, Math.round(this.sliceRows / 4));
    let size = window.sized(Math.min(FIRST_SLICE_ROWS, most));
    const first = slices.slice(after, size, window.left);
    const sql = this.compile(first).text;
    let slice = first;
    for (;;) {
      window.take(await this.db.all<RawRow>(slice.statement));
      if (window.full) break;
      const [end] = await this.db.all<RawRow>(slices.boundary(after, size).statement);
      if (end === undefined) break;
      after = { id: end.id, value: end.sort_value! };
      size = window.sized(Math.min(size * 2, most));
      await nextTurn();
      slice = slices.slice(after, size, window.left);
    }
    if (ofValues === query) return toResult(query, first, window.rows, sql);
    // The window's documents, by key, in its order.
    const ids = window.rows.map((row) => row.id);
    const byId = compileQuery(this.dialect, scope, { where: { kind: 'id', ids }, order: { kind: 'id', descending: false }, offset: 0, limit: null, select: query.select }, { path: { kind: 'by-id', ids }, filter: [] });
    const documents = new Map((ids.length === 0 ? [] : await this.db.all<RawRow>(byId.statement)).map((row) => [row.id, row]));
    const read = window.rows.flatMap((row) => {
      const document = documents.get(row.id);
      return document ? [{ ...document, sort_value: row.sort_value }] : [];
    });
    return toResult(query, byId, read, sql);
  }

  /**
   * A summary of a path's numbers on an engine that reads on the server's thread, a slice of the
   * path's value rows per statement (compileNumberSlices): one statement over a path of a million
   * rows would hold every other request. An aggregate reads a row for much less than a window
   * sends one to this thread: its slices are larger. Null where the query is read in one statement.
   */
  private async inNumberSlices(scope: Scope, query: DocumentQuery, plan: IndexPlan): Promise<DocumentQueryResult | null> {
    const slices = compileNumberSlices(this.dialect, scope, query, plan);
    if (!slices) return null;
    const size = this.sliceRows * INDEX_SLICE_FACTOR;
    let after: ValueKey | null = null;
    let summary: NumberSummary | null = null;
    let sql: string | null = null;
    for (;;) {
      const [end]: RawRow[] = await this.db.all<RawRow>(slices.boundary(after, size).statement);
      const through: ValueKey | null = end ? { id: end.id, value: end.sort_value! } : null;
      const slice = slices.slice(after, through);
      sql ??= this.compile(slice).text;
      const [row] = await this.db.all<RawRow>(slice.statement);
      summary = addSummaries(summary, numberSummary(row));
      // Another kind of value makes the whole a summary of mixed values: the rest cannot change it.
      if (through === null || summary.kind === 'mixed') return { numbers: summary, sql };
      after = through;
      await nextTurn();
    }
  }

  /**
   * A window far down its rows on an engine that reads on the server's thread, whose statement
   * would read every row its offset skips (`*[_type == "post"] | order(views desc)[50000...50010]`
   * walked 50,010 value rows in one statement): the offset is skipped a slice of the path's index
   * at a time (compileOffsetSkips), then the window read past the last row skipped. Null where
   * the query is read in one statement.
   */
  private async pastSkippedOffset(scope: Scope, query: DocumentQuery, plan: IndexPlan): Promise<DocumentQueryResult | null> {
    // Walked down a path's values, a statement keeps the rows it walks (downTheValues): an id slice's rows.
    const size = query.order.kind === 'value' && query.order.descending ? this.sliceRows : this.sliceRows * INDEX_SLICE_FACTOR;
    if (query.limit === null || query.offset <= size) return null;
    const skips = compileOffsetSkips(this.dialect, scope, query, plan);
    if (!skips) return null;
    const start = query.after;
    let after: string | ValueKey | null = start === undefined ? null : start.value === undefined ? start.id : { id: start.id, value: start.value };
    let offset = query.offset;
    let exhausted = false;
    while (offset > size && !exhausted) {
      const [last]: RawRow[] = await this.db.all<RawRow>(skips.skip(after, size).statement);
      if (last === undefined) exhausted = true;
      else {
        after = query.order.kind === 'value' ? { id: last.id, value: last.sort_value! } : last.id;
        offset -= size;
        await nextTurn();
      }
    }
    // Fewer rows than the offset: an empty window.
    const window = skips.window(after, offset);
    return toResult(query, window, exhausted ? [] : await this.db.all<RawRow>(window.statement), this.compile(window).text);
  }

  private compile(query: CompiledQuery) {
    return compileSql(query.statement, sqlDialect(this.db.dialect).placeholder);
  }

  /** The plans of queries, by the counts known; those not known are measured (one statement) and the plans chosen again. */
  private async plan(scope: Scope, asked: readonly AskedQuery[]): Promise<IndexPlan[]> {
    for (let round = 0; ; round++) {
      const missing = new Map<string, Count>();
      // A count that could not be measured is taken as large rather than measured again.
      const plans = asked.map(({ query, shapes }) => chooseAccessPath(query, this.statistics(scope, shapes, round < 2 ? missing : undefined)));
      if (missing.size === 0) return plans;
      await this.measure(scope, missing);
    }
  }

  private statistics(scope: Scope, shapes: readonly ShapeInfo[] | null, missing?: Map<string, Count>): IndexStatistics {
    const known = (count: Count) => {
      const key = countKey(scope, count);
      const n = this.counts.get(key);
      if (n === undefined) missing?.set(key, count);
      return n;
    };
    return {
      shapes,
      rowsOf: (condition) => known({ kind: 'rows', condition }),
      shareOf: (types) => {
        const ofTypes = known({ kind: 'documents', types });
        const all = known({ kind: 'documents', types: null });
        return ofTypes === undefined || all === undefined ? undefined : all === 0 ? 0 : ofTypes / all;
      },
    };
  }

  private async measure(scope: Scope, missing: ReadonlyMap<string, Count>): Promise<void> {
    let entries = [...missing];
    if (!this.readsOffThread) {
      // A dataset's documents (of some types) are counted whole: in slices, as a query's count.
      for (const [key, count] of entries) {
        if (count.kind !== 'documents') continue;
        const types = count.types;
        const plan: IndexPlan = types?.length === 1 ? { path: { kind: 'by-type', types }, filter: [] } : { path: { kind: 'full-scan' }, filter: types ? [{ kind: 'type', types }] : [] };
        const query: DocumentQuery = { where: types ? { kind: 'type', types } : ALL, order: { kind: 'id', descending: false }, offset: 0, limit: null, select: { kind: 'count' } };
        const counted = await this.inSlices(scope, query, plan, false);
        if (counted && 'count' in counted) this.counts.set(key, counted.count);
      }
      entries = entries.filter(([, count]) => count.kind !== 'documents');
    }
    for (let start = 0; start < entries.length; start += COUNTS_PER_STATEMENT) {
      const chunk = entries.slice(start, start + COUNTS_PER_STATEMENT);
      const row = await this.db.get<Record<string, number>>(compileCounts(scope, chunk.map(([, count]) => count)));
      chunk.forEach(([key], i) => {
        const n = row?.[`c${i}`];
        if (n !== undefined) this.counts.set(key, Number(n));
      });
    }
  }

  /** The shape hashes of documents. */
  async shapesOf(projectId: string, dataset: string, ids: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (let start = 0; start < ids.length; start += 500) {
      const chunk = ids.slice(start, start + 500);
      const rows = await this.db.all<{ id: string; shape: string }>(
        sql`SELECT id, shape FROM document_entries WHERE project_id = ${projectId} AND dataset = ${dataset} AND ${isIn('id', chunk)}`,
      );
      for (const row of rows) found.set(row.id, row.shape);
    }
    return found;
  }

  /** Every shape of a dataset. */
  async shapes(projectId: string, dataset: string): Promise<ShapeInfo[]> {
    const rows = await this.db.all<{ shape: string; type: string; paths: unknown }>(
      'SELECT shape, type, paths FROM document_shapes WHERE project_id = ? AND dataset = ?',
      [projectId, dataset],
      { planOnce: true },
    );
    return rows.map((row) => ({ hash: row.shape, type: row.type, paths: parseShapePaths(row.paths) }));
  }
}

function toResult(query: DocumentQuery, compiled: CompiledQuery, rows: RawRow[], sql: string): DocumentQueryResult {
  if (query.select.kind === 'count') return { count: Number(rows[0]?.n ?? 0), sql };
  if (query.select.kind === 'numbers') return { numbers: numberSummary(rows[0]), sql };
  const values = query.select.kind === 'values' || query.select.kind === 'firsts';
  return {
    sql,
    rows: rows.map((raw) => {
      const row: DocumentRow = { id: raw.id };
      if (raw.type !== undefined) row.type = raw.type;
      if (values) row.values = compiled.valueColumns.map((column) => ((raw as unknown as Record<string, string | null>)[column] ?? null));
      else row.content = raw.content;
      if (raw.content_bytes !== undefined) row.contentBytes = Number(raw.content_bytes);
      if (raw.sort_value !== undefined) row.sortValue = raw.sort_value;
      return row;
    }),
  };
}

/**
 * The rows of a window (or of every row, without a limit) read a slice at a time: those its offset
 * skips are dropped as they come, so that a window far down holds no more than its own rows.
 */
class SlicedWindow {
  readonly rows: RawRow[] = [];
  private readonly limit: number | null;
  /** Rows of the offset not yet passed. */
  private skip: number;

  constructor({ offset, limit }: DocumentQuery) {
    this.limit = limit;
    this.skip = limit === null ? 0 : offset;
  }

  take(found: readonly RawRow[]): void {
    const dropped = Math.min(this.skip, found.length);
    this.skip -= dropped;
    for (let i = dropped; i < found.length && !this.full; i++) this.rows.push(found[i]!);
  }

  get full(): boolean {
    return this.limit !== null && this.skip === 0 && this.rows.length >= this.limit;
  }

  /** The most rows a statement of the rows after those taken may still give the window: those its offset skips, and its own. */
  get left(): number {
    return this.limit === null ? Number.MAX_SAFE_INTEGER : this.skip + this.limit - this.rows.length;
  }

  /**
   * A slice's size: at least the rows the window still wants, which fewer rows could not give (a
   * page of 10,000 ids, most of them matching, took several statements of 5,000), but not those
   * its offset skips: a window far down would be one statement over every row before it.
   */
  sized(slice: number): number {
    return this.limit === null ? slice : Math.max(slice, this.limit - this.rows.length);
  }
}

/** The summary of two parts' numbers together (of none: the second's). */
function addSummaries(a: NumberSummary | null, b: NumberSummary): NumberSummary {
  if (a === null || b.kind === 'mixed') return b;
  if (a.kind === 'mixed') return a;
  const bound = (x: number | null, y: number | null, pick: (x: number, y: number) => number) => (x === null ? y : y === null ? x : pick(x, y));
  return {
    kind: 'numbers',
    count: a.count + b.count,
    sum: a.sum + b.sum,
    min: bound(a.min, b.min, Math.min),
    max: bound(a.max, b.max, Math.max),
    magnitude: a.magnitude + b.magnitude,
    fractions: a.fractions + b.fractions,
  };
}

/** The row of a `numbers` selection (compile-query.ts) as a summary; engines return counts as text or numbers. */
function numberSummary(row: RawRow | undefined): NumberSummary {
  if (Number(row?.others ?? 0) > 0) return { kind: 'mixed' };
  const count = Number(row?.n ?? 0);
  const orNull = (value: number | string | null | undefined) => (count === 0 || value === null || value === undefined ? null : Number(value));
  return {
    kind: 'numbers',
    count,
    sum: orNull(row?.total) ?? 0,
    min: orNull(row?.least),
    max: orNull(row?.greatest),
    magnitude: orNull(row?.magnitude) ?? 0,
    fractions: Number(row?.fractions ?? 0),
  };
}
