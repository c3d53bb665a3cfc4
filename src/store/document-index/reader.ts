import { LRUCache } from 'lru-cache';
import type { SqlExecutor } from '../sql.ts';
import type { DocumentQuery, DocumentQueryResult, DocumentRow } from './document-query.ts';
import { parseShapePaths, type PathKind } from './entries.ts';
import { buildProbeSql, buildQuerySql, buildTypeShareSql, conjuncts, isProbed, sortedValue, type BuiltSql } from './scan-sql.ts';

/** A condition yielding fewer rows than this drives a query rather than a larger one or an order. */
const PROBE_CAP = 1000;
/** Windows of at most this many rows, from the first, are planned once (StatementOptions.planOnce). */
const PLAN_ONCE_LIMIT = 100;
/**
 * How long a probe's counts are used again. They only choose the plan, never change a result, so
 * a stale count costs at most a slower plan for this long; a repeated query saves a statement (a
 * round trip on PostgreSQL).
 */
const PROBE_TTL_MS = 10_000;
const PROBES_KEPT = 1000;

export interface ShapeInfo {
  hash: string;
  type: string;
  paths: Map<string, PathKind>;
}

interface RawRow {
  id: string;
  type?: string;
  content?: unknown;
  sort_value?: string;
  n?: number;
  ord?: number;
  [column: `v${number}`]: string | null;
}

/** What the query planner reads from the document index (see README.md). */
export class DocumentIndexReader {
  private readonly db: SqlExecutor;
  private readonly probes: LRUCache<string, Record<string, number>>;
  /**
   * Whether statements run beside the JavaScript thread (PostgreSQL's server) rather than on it
   * (SQLite, in process): only then does a statement sent ahead overlap other work.
   */
  readonly readsBesideThread: boolean;

  constructor(db: SqlExecutor, now: () => number = performance.now.bind(performance), probes?: LRUCache<string, Record<string, number>>) {
    this.db = db;
    this.readsBesideThread = db.dialect === 'postgres';
    this.probes = probes ?? new LRUCache({ max: PROBES_KEPT, ttl: PROBE_TTL_MS, ttlResolution: 0, perf: { now } });
  }

  /** This reader on another executor of the same database (one that counts statements), sharing the probes' counts. */
  on(db: SqlExecutor): DocumentIndexReader {
    return new DocumentIndexReader(db, undefined, this.probes);
  }

  /** The SQL a query runs, for EXPLAIN output. */
  describe(projectId: string, dataset: string, query: DocumentQuery): BuiltSql {
    return buildQuerySql(this.db.dialect, projectId, dataset, query);
  }

  async query(projectId: string, dataset: string, query: DocumentQuery): Promise<DocumentQueryResult> {
    const chosen = await this.withDriver(projectId, dataset, query);
    const built = buildQuerySql(this.db.dialect, projectId, dataset, chosen);
    // A window of a few rows (a lookup, a page of posts) walks an index by key whatever the values;
    // a scan's pages, counts and unbounded queries are planned for theirs. A window further down
    // has its OFFSET in its text: each page of a listing would take a prepared statement's place.
    const planOnce = chosen.limit !== null && chosen.limit <= PLAN_ONCE_LIMIT && chosen.offset === 0;
    const result = toResult(query, await this.db.all<RawRow>(built.sql, built.params, { planOnce }));
    return chosen.driver === query.driver ? result : { ...result, driver: chosen.driver! };
  }

  /**
   * Several queries at once. The queries that share one statement (a subquery per document of a
   * page: the same filter with another `^._id`) run as one statement over their parameters: a
   * LATERAL join on PostgreSQL (one round trip), a correlated subquery per parameter row on SQLite
   * (one statement instead of a thousand).
   */
  async queryMany(projectId: string, dataset: string, queries: readonly DocumentQuery[]): Promise<DocumentQueryResult[]> {
    const results = new Array<DocumentQueryResult>(queries.length);
    const groups = new Map<string, { built: BuiltSql[]; indexes: number[] }>();
    queries.forEach((query, i) => {
      const built = buildQuerySql(this.db.dialect, projectId, dataset, query);
      const group = groups.get(built.sql) ?? { built: [], indexes: [] };
      group.built.push(built);
      group.indexes.push(i);
      groups.set(built.sql, group);
    });
    for (const group of groups.values()) {
      const first = queries[group.indexes[0]!]!;
      if (group.built.length === 1) {
        results[group.indexes[0]!] = await this.query(projectId, dataset, first);
        continue;
      }
      const count = first.select.kind === 'count';
      const perQuery = this.db.dialect === 'postgres' ? await this.lateral(group.built, count) : await this.correlated(group.built, count);
      group.indexes.forEach((index, k) => {
        results[index] = toResult(queries[index]!, perQuery[k]!);
      });
    }
    return results;
  }

  /** PostgreSQL: one statement, a LATERAL join over the parameter lists. */
  private async lateral(built: readonly BuiltSql[], count: boolean): Promise<RawRow[][]> {
    const { sql, resultOrder } = built[0]!;
    let n = 0;
    // Text from jsonb has the default collation, which yields to the columns' own ("C" for ids and
    // values): each comparison keeps its index.
    const inner = sql.replace(/\?/g, () => `(k.p->>${n++})`);
    const order = resultOrder.replace(/(^|, )/g, '$1q.');
    const rows = await this.db.all<RawRow>(
      `SELECT k.ord, q.* FROM jsonb_array_elements(?::jsonb) WITH ORDINALITY AS k(p, ord) CROSS JOIN LATERAL (${inner}) q ORDER BY k.ord${count ? '' : `, ${order}`}`,
      [JSON.stringify(built.map((b) => b.params))],
    );
    const perQuery = built.map(() => [] as RawRow[]);
    for (const row of rows) perQuery[Number(row.ord) - 1]!.push(row);
    return perQuery;
  }

  /**
   * SQLite, which has no LATERAL: the parameter lists as a VALUES table, and per row the query as a
   * correlated subquery whose rows come back as one JSON array. Chunks have power-of-two sizes, so
   * that few distinct statements are prepared.
   */
  private async correlated(built: readonly BuiltSql[], count: boolean): Promise<RawRow[][]> {
    const { sql, resultOrder, columns, params } = built[0]!;
    const width = params.length;
    let n = 0;
    const inner = sql.replace(/\?/g, () => `k.p${n++}`);
    const perQuery: RawRow[][] = [];
    let start = 0;
    while (start < built.length) {
      let size = 512;
      while (size > built.length - start) size >>= 1;
      const chunk = built.slice(start, start + size);
      const keys = `WITH k(ord${Array.from({ length: width }, (_, i) => `, p${i}`).join('')}) AS (VALUES ${chunk.map(() => `(?${', ?'.repeat(width)})`).join(', ')})`;
      const values = chunk.flatMap((b, i) => [String(i), ...b.params]);
      if (count) {
        const rows = await this.db.all<{ ord: string; n: number }>(`${keys} SELECT k.ord AS ord, (${inner}) AS n FROM k`, values);
        for (const row of rows) perQuery[start + Number(row.ord)] = [{ id: '', n: row.n }];
      } else {
        // Content goes in as JSON rather than as a string holding JSON: parsed once, not unescaped and parsed again.
        const list = columns.map((column) => (column === 'content' ? 'json(q.content)' : `q.${column}`)).join(', ');
        const order = resultOrder.replace(/(^|, )/g, '$1q.');
        const rows = await this.db.all<{ ord: string; r: string }>(`${keys} SELECT k.ord AS ord, (SELECT json_group_array(json_array(${list}) ORDER BY ${order}) FROM (${inner}) q) AS r FROM k`, values);
        for (const row of rows) {
          const found = JSON.parse(row.r) as unknown[][];
          perQuery[start + Number(row.ord)] = found.map((values) => {
            const raw: Record<string, unknown> = {};
            for (let i = 0; i < columns.length; i++) raw[columns[i]!] = values[i];
            return raw as unknown as RawRow;
          });
        }
      }
      start += size;
    }
    return perQuery;
  }

  /**
   * Picks the driving condition by counting (up to a cap) what each candidate's index yields, when
   * the choice is not obvious: several broad conditions (a type and a range), or one beside an
   * order the query could walk instead. SQLite keeps no statistics of values; PostgreSQL does, but
   * the statement fixes which index drives (the others are predicates on the entries row), so its
   * statistics cannot turn a type scan into a range scan.
   */
  private async withDriver(projectId: string, dataset: string, query: DocumentQuery): Promise<DocumentQuery> {
    if (query.driver !== undefined || query.select.kind === 'count') return query;
    const parts = conjuncts(query.where);
    if (parts.some((part) => !isProbed(part) && part.kind !== 'not' && part.kind !== 'or')) return query;
    const probed = parts.map((part, i) => ({ part, i })).filter(({ part }) => isProbed(part));
    const walksOrder = query.order.kind === 'value' && query.limit !== null;
    if (probed.length < (walksOrder ? 1 : 2)) return query;
    const row = await this.probe(buildProbeSql(this.db.dialect, projectId, dataset, probed.map(({ part }) => part), PROBE_CAP));
    let best = -1;
    let least = PROBE_CAP;
    probed.forEach(({ i }, k) => {
      const count = Number(row?.[`c${k}`] ?? PROBE_CAP);
      if (count < least) {
        least = count;
        best = i;
      }
    });
    // Nothing small: the store's own choice (the documents table in id order, or the order's path).
    return best < 0 ? query : { ...query, driver: best };
  }

  /**
   * The share of a dataset's documents that are of these types (0 in an empty dataset). It only
   * picks a plan, so it is cached like a probe's counts.
   */
  async typeShare(projectId: string, dataset: string, types: readonly string[]): Promise<number> {
    const row = await this.probe(buildTypeShareSql(this.db.dialect, projectId, dataset, types));
    const all = Number(row?.['c1'] ?? 0);
    return all === 0 ? 0 : Number(row?.['c0'] ?? 0) / all;
  }

  /** A probe's counts: from the last PROBE_TTL_MS if the same probe ran then, else from the database. */
  private async probe(probe: BuiltSql): Promise<Record<string, number> | undefined> {
    const key = JSON.stringify([probe.sql, probe.params]);
    const known = this.probes.get(key);
    if (known) return known;
    const row = await this.db.get<Record<string, number>>(probe.sql, probe.params);
    if (row) this.probes.set(key, row);
    return row;
  }

  /** The shape hashes of documents. */
  async shapesOf(projectId: string, dataset: string, ids: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (let start = 0; start < ids.length; start += 500) {
      const chunk = ids.slice(start, start + 500);
      const rows = await this.db.all<{ id: string; shape: string }>(
        `SELECT id, shape FROM document_entries WHERE project_id = ? AND dataset = ? AND id IN (${chunk.map(() => '?').join(', ')})`,
        [projectId, dataset, ...chunk],
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

function toResult(query: DocumentQuery, rows: RawRow[]): DocumentQueryResult {
  if (query.select.kind === 'count') return { count: Number(rows[0]?.n ?? 0) };
  const paths = query.select.kind === 'values' ? query.select.paths.length : 0;
  const columns = Array.from({ length: paths }, (_, i) => `v${i}` as const);
  return {
    rows: rows.map((raw) => {
      const row: DocumentRow = { id: raw.id };
      if (raw.type !== undefined) row.type = raw.type;
      if (query.select.kind !== 'values') row.content = raw.content;
      else row.values = columns.map((column, i) => (sortedValue(query, i) ? raw.sort_value : raw[column]) ?? null);
      if (raw.sort_value !== undefined) row.sortValue = raw.sort_value;
      return row;
    }),
  };
}
