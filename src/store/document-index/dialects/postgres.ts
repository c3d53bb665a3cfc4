import { compileSql, raw, sql } from '../../sql-fragment.ts';
import { isPlainStep, type DocumentPath } from '../document-query.ts';
import type { RawRow } from '../sql/compile-query.ts';
import type { IndexDialect } from './dialect.ts';

/** The JSON value at a path of a document, SQL NULL where there is none. */
function valueAtPath(document: string, path: DocumentPath): string {
  if (!path.every(isPlainStep)) throw new Error('BUG: a selected path that is not plain names and indexes');
  if (path.every((step) => typeof step === 'string')) return `${document}${path.map((step) => `->'${step}'`).join('')}`;
  // `->` with an integer reads a scalar as an array of itself ('"abc"'->0 is "abc"); a strict
  // jsonpath reads elements of arrays only, and attributes of objects only, as GROQ does.
  const jsonPath = `strict $${path.map((step) => (typeof step === 'number' ? `[${step}]` : `."${step}"`)).join('')}`;
  return `jsonb_path_query_first(${document}, '${jsonPath}', '{}', true)`;
}

export const postgresIndexDialect: IndexDialect = {
  // jsonb's text has the default collation; the index's order is that of "C".
  entryValue: (path) => sql`(e.vals->>(${path}::text)) COLLATE "C"`,
  position: (text, needle) => sql`strpos(${text}, ${needle})`,
  // The length of the document's text (migration 014), not its compressed size as stored, or its
  // parse where larger (migration 017).
  contentBytes: 'GREATEST(d.content_bytes, d.heap_bytes)',
  content(select) {
    if (select.kind !== 'paths') return 'd.content';
    if (select.paths.length === 1) return `jsonb_build_array(${valueAtPath('d.content', select.paths[0]!)})`;
    // Each operator on a compressed jsonb decompresses it: several paths read a copy decompressed once.
    const values = select.paths.map((path) => valueAtPath('c', path)).join(', ');
    return `(SELECT jsonb_build_array(${values}) FROM (SELECT d.content || '{}'::jsonb AS c OFFSET 0) decompressed)`;
  },
  // Given a window of candidates (a page of a scan), PostgreSQL hash-joined it to every entries row
  // of the dataset, a full scan per page: a window takes each candidate's row by its key instead,
  // as SQLite's nested loop does. OFFSET 0 keeps the planner from flattening it back into a join.
  joinEntries: (row, candidates, rowId = `${row}.id`) =>
    candidates === 'window'
      ? { join: ` CROSS JOIN LATERAL (SELECT * FROM document_entries e WHERE e.project_id = ${row}.project_id AND e.dataset = ${row}.dataset AND e.id = ${rowId} OFFSET 0) e`, conditions: [] }
      : { join: ' CROSS JOIN document_entries e', conditions: [`e.project_id = ${row}.project_id`, `e.dataset = ${row}.dataset`, `e.id = ${rowId}`] },

  // PostgreSQL plans the join by its own statistics, and has no unary plus for text: the column as it is.
  opaque: (column) => column,

  /** One statement, one round trip: a LATERAL join over the queries' parameter lists. */
  async runBatch(db, queries) {
    const { statement, resultOrder } = queries[0]!;
    // Text from jsonb has the default collation, which yields to the columns' own ("C" for ids and
    // values): each comparison keeps its index.
    const inner = compileSql(statement, (i) => `(k.p->>${i})`).text;
    const order = resultOrder === null ? '' : `, ${resultOrder.replace(/(^|, )/g, '$1q.')}`;
    const rows = await db.all<RawRow & { ord: number }>(
      sql`SELECT k.ord, q.* FROM jsonb_array_elements(${JSON.stringify(queries.map((query) => query.statement.params))}::jsonb) WITH ORDINALITY AS k(p, ord) CROSS JOIN LATERAL (${raw(inner)}) q ORDER BY k.ord${raw(order)}`,
    );
    const perQuery = queries.map(() => [] as RawRow[]);
    for (const row of rows) perQuery[Number(row.ord) - 1]!.push(row);
    return perQuery;
  },

  // Generated from the encoded value (migration 012).
  numbers: 'generated',
  // Each term clamped to ±limit: no count of rows makes such a sum overflow, and one with a term
  // clamped is past the limit still.
  boundedSum: (expression, limit) => `SUM(LEAST(GREATEST(${expression}, ${-limit}), ${limit}))`,

  expandEntries(projectId, dataset, ids) {
    // Each id found by the entries' key. An import writes in one transaction, so the statistics
    // never see its rows: with `e.id = ANY (...)` PostgreSQL expected one entries row for the
    // dataset and read them all for each batch, checking the ids on each (an import slowed as it
    // grew). OFFSET 0 keeps the lookup per id.
    const chosen = sql`unnest(${ids}::text[]) AS k(id) CROSS JOIN LATERAL (SELECT * FROM document_entries e WHERE e.project_id = ${projectId} AND e.dataset = ${dataset} AND e.id = k.id OFFSET 0) e`;
    return [
      sql`INSERT INTO document_values (project_id, dataset, path, value, id) SELECT e.project_id, e.dataset, j.key, j.value, e.id
          FROM ${chosen} CROSS JOIN LATERAL jsonb_each_text(e.vals) j ORDER BY j.key, j.value COLLATE "C", e.id`,
      sql`INSERT INTO document_references (project_id, dataset, target_id, id) SELECT e.project_id, e.dataset, j.value, e.id
          FROM ${chosen} CROSS JOIN LATERAL jsonb_array_elements_text(e.refs::jsonb) j ORDER BY j.value COLLATE "C", e.id`,
    ];
  },
};
