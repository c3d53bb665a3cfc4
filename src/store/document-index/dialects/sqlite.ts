import { setImmediate as nextTurn } from 'node:timers/promises';
import { sqliteDialect } from '../../dialects/sqlite.ts';
import { compileSql, sql } from '../../sql-fragment.ts';
import { isPlainStep, type DocumentPath } from '../document-query.ts';
import type { RawRow } from '../sql/compile-query.ts';
import { RANK_NUMBER, RANK_STRING } from '../values.ts';
import type { IndexDialect } from './dialect.ts';

/** The JSON value at a path of a document (`->` reads an element or an attribute as GROQ does), SQL NULL where there is none. */
function valueAtPath(path: DocumentPath): string {
  if (!path.every(isPlainStep)) throw new Error('BUG: a selected path that is not plain names and indexes');
  return `(d.content->'$${path.map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`)).join('')}')`;
}

/** Subqueries per statement of a batch: at first, at most, and the times a chunk is resized by (ms). */
const BATCH_CHUNK = { first: 32, most: 512, shrinkAfterMs: 16, growBelowMs: 4 };

/** The next chunk's size after one of `size` took `tookMs`: halved after a long one, doubled after a quick one. */
export function nextChunkSize(size: number, tookMs: number): number {
  if (tookMs > BATCH_CHUNK.shrinkAfterMs) return Math.max(1, size >> 1);
  if (tookMs < BATCH_CHUNK.growBelowMs) return Math.min(BATCH_CHUNK.most, size << 1);
  return size;
}

export const sqliteIndexDialect: IndexDialect = {
  // Indexed names hold no dot, quote or backslash (entries.ts): the quoted label needs no escapes.
  entryValue: (path) => sql`json_extract(e.vals, ${`$."${path}"`})`,
  position: (text, needle) => sql`instr(${text}, ${needle})`,
  // Read beside the content, whose overflow pages SQLite walks anyway.
  contentBytes: 'max(length(d.content), coalesce(d.heap_bytes, 0))',
  content: (select) =>
    select.kind === 'paths' ? `json_array(${select.paths.map(valueAtPath).join(', ')})` : sqliteDialect.binaryJsonColumn('d.content'),
  joinEntries: (row, _, rowId = `${row}.id`) => ({ join: ' CROSS JOIN document_entries e', conditions: [`e.project_id = ${row}.project_id`, `e.dataset = ${row}.dataset`, `e.id = ${rowId}`] }),

  // A unary plus: SQLite reads `+x.id` as an expression, so `d.id = +x.id` passes no bound on x.id to d.id.
  opaque: (column) => `+${column}`,

  /**
   * SQLite has no LATERAL: the parameter lists as a VALUES table, and per row the query as a
   * correlated subquery whose rows come back as one JSON array. Chunks have power-of-two sizes, so
   * that few distinct statements are prepared. SQLite reads on the server's thread: the event loop
   * is free between chunks, and a chunk is made smaller after one that took long (a count of
   * thousands of references per subquery) and larger after a quick one (a lookup per subquery).
   */
  async runBatch(db, queries) {
    const { statement, columns, resultOrder } = queries[0]!;
    const width = statement.params.length;
    // The query's parameters are the columns of its row of the VALUES table.
    const inner = compileSql(statement, (i) => `k.p${i}`).text;
    const perQuery: RawRow[][] = [];
    let tookMs = 0;
    let size = BATCH_CHUNK.first;
    for (let start = 0; start < queries.length; start += size) {
      if (start > 0) {
        await nextTurn();
        size = nextChunkSize(size, tookMs);
      }
      while (size > queries.length - start) size >>= 1;
      const chunk = queries.slice(start, start + size);
      const began = performance.now();
      const names = Array.from({ length: width }, (_, i) => `, p${i}`).join('');
      const keys = `WITH k(ord${names}) AS (VALUES ${chunk.map(() => `(?${', ?'.repeat(width)})`).join(', ')})`;
      const values = chunk.flatMap((query, i) => [String(i), ...query.statement.params]);
      if (resultOrder === null) {
        const rows = await db.all<{ ord: string; n: number }>(`${keys} SELECT k.ord AS ord, (${inner}) AS n FROM k`, values);
        tookMs = performance.now() - began;
        for (const row of rows) perQuery[start + Number(row.ord)] = [{ id: '', n: row.n }];
        continue;
      }
      // Content goes in as JSON rather than as a string holding JSON: parsed once, not unescaped and parsed again.
      const list = columns.map((column) => (column === 'content' ? 'json(q.content)' : `q.${column}`)).join(', ');
      const order = resultOrder.replace(/(^|, )/g, '$1q.');
      const rows = await db.all<{ ord: string; r: string }>(`${keys} SELECT k.ord AS ord, (SELECT json_group_array(json_array(${list}) ORDER BY ${order}) FROM (${inner}) q) AS r FROM k`, values);
      tookMs = performance.now() - began;
      for (const row of rows) {
        const found = JSON.parse(row.r) as unknown[][];
        perQuery[start + Number(row.ord)] = found.map((values) => {
          const raw: Record<string, unknown> = {};
          for (let i = 0; i < columns.length; i++) raw[columns[i]!] = values[i];
          return raw as unknown as RawRow;
        });
      }
    }
    return perQuery;
  },

  // Written by the writers (migration 013); a table cannot gain a stored generated column.
  numbers: 'written',
  // A sum of reals overflows to infinity, without an error: clamping each term cost a fifth of a summary's time.
  boundedSum: (expression) => `SUM(${expression})`,

  expandEntries(projectId, dataset, ids) {
    const chosen = sql`e.project_id = ${projectId} AND e.dataset = ${dataset} AND e.id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;
    // Numbers (rank 2) decoded by the connection's function (sqlite/sql-functions.ts), called for them alone.
    return [
      sql`INSERT INTO document_values (project_id, dataset, path, value, id, num)
          SELECT e.project_id, e.dataset, j.key, j.value, e.id, CASE WHEN j.value >= ${RANK_NUMBER} AND j.value < ${RANK_STRING} THEN groq_number(j.value) END
          FROM document_entries e, json_each(e.vals) j WHERE ${chosen} ORDER BY j.key, j.value, e.id`,
      sql`INSERT INTO document_references (project_id, dataset, target_id, id) SELECT e.project_id, e.dataset, j.value, e.id
          FROM document_entries e, json_each(e.refs) j WHERE ${chosen} ORDER BY j.value, e.id`,
    ];
  },
};
