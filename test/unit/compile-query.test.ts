// The SQL compiler of the document index: given a query and its access path, the statement each
// engine runs and its parameters, numbered the engine's way when compiled. And the fragments it is
// built of: parameters kept apart from text, so that no `?` in the text is taken for one.
import { describe, expect, it } from 'vitest';
import type { IndexPlan } from '../../src/store/document-index/access-path.ts';
import { indexDialect } from '../../src/store/document-index/dialects/dialect.ts';
import type { DocumentQuery } from '../../src/store/document-index/document-query.ts';
import { compileCounts } from '../../src/store/document-index/sql/compile-counts.ts';
import { compileQuery } from '../../src/store/document-index/sql/compile-query.ts';
import { sqlDialect } from '../../src/store/dialects/dialect.ts';
import { positionalStatement } from '../../src/store/postgres/placeholders.ts';
import type { Dialect } from '../../src/store/sql.ts';
import { compileSql, join, list, raw, sql } from '../../src/store/sql-fragment.ts';

const scope = { projectId: 'p', dataset: 'd' };

function compiled(dialect: Dialect, query: DocumentQuery, plan: IndexPlan) {
  return compileSql(compileQuery(indexDialect(dialect), scope, query, plan).statement, sqlDialect(dialect).placeholder);
}

const byId = { kind: 'id', descending: false } as const;

describe('SQL fragments', () => {
  it('keeps parameters apart from the text, spliced fragments with theirs, and numbers them when compiled', () => {
    const inner = sql`x.path = ${'views'} AND x.value IN (${list(['2a', '2b'])})`;
    const fragment = sql`SELECT ${raw('x.id')} FROM document_values x WHERE x.project_id = ${'p'} AND ${inner} AND ${join([sql`${1} = 1`, raw('TRUE')], ' OR ')}`;
    expect(compileSql(fragment, sqlDialect('postgres').placeholder)).toEqual({
      text: 'SELECT x.id FROM document_values x WHERE x.project_id = $1 AND x.path = $2 AND x.value IN ($3, $4) AND $5 = 1 OR TRUE',
      params: ['p', 'views', '2a', '2b', 1],
    });
    expect(compileSql(fragment, sqlDialect('sqlite').placeholder).text).toBe('SELECT x.id FROM document_values x WHERE x.project_id = ? AND x.path = ? AND x.value IN (?, ?) AND ? = 1 OR TRUE');
  });

  it("leaves a `?` of the text alone: PostgreSQL's jsonb operator is no parameter", () => {
    expect(positionalStatement(sql`SELECT e.vals ? ${'title'} FROM document_entries e`)).toMatchObject({ text: 'SELECT e.vals ? $1 FROM document_entries e', params: ['title'] });
  });

  it("refuses portable text whose `?` marks are not its parameters", () => {
    expect(positionalStatement('SELECT v FROM t WHERE id = ?', [1])).toMatchObject({ text: 'SELECT v FROM t WHERE id = $1' });
    expect(() => positionalStatement("SELECT v FROM t WHERE note = '?' AND id = ?", [1])).toThrow(/2 placeholders and 1 parameters/);
  });
});

describe('the compiled statement of each access path', () => {
  it('reads a page of a type after the last id, with its values from the entries rows (by key on PostgreSQL, for a window)', () => {
    const query: DocumentQuery = { where: { kind: 'type', types: ['post'] }, order: byId, offset: 0, limit: 1000, after: { id: 'post-9' }, select: { kind: 'values', paths: ['views'], type: true } };
    const plan: IndexPlan = { path: { kind: 'by-type', types: ['post'] }, filter: [] };
    // The entries row meets the page's bound row by an opaque id: SQLite would carry the bound to it through `e.id = d.id`.
    expect(compiled('sqlite', query, plan)).toEqual({
      text:
        'SELECT d.id AS id, d.type AS type, json_extract(e.vals, ?) AS v0 FROM documents d CROSS JOIN document_entries e WHERE d.project_id = ? AND d.dataset = ? AND d.type IN (?) ' +
        'AND e.project_id = d.project_id AND e.dataset = d.dataset AND e.id = +d.id AND (d.id > ?) ORDER BY d.id LIMIT 1000 OFFSET 0',
      params: ['$."views"', 'p', 'd', 'post', 'post-9'],
    });
    expect(compiled('postgres', query, plan)).toEqual({
      text:
        'SELECT d.id AS id, d.type AS type, (e.vals->>($1::text)) COLLATE "C" AS v0 FROM documents d ' +
        'CROSS JOIN LATERAL (SELECT * FROM document_entries e WHERE e.project_id = d.project_id AND e.dataset = d.dataset AND e.id = d.id OFFSET 0) e ' +
        'WHERE d.project_id = $2 AND d.dataset = $3 AND d.type IN ($4) AND (d.id > $5) ORDER BY d.id LIMIT 1000 OFFSET 0',
      params: ['views', 'p', 'd', 'post', 'post-9'],
    });
  });

  it('walks a path in value order after the last (value, id), from the value rows alone', () => {
    const query: DocumentQuery = {
      where: { kind: 'value', path: 'n' },
      order: { kind: 'value', path: 'n', descending: false },
      offset: 0,
      limit: 3,
      after: { id: 'a', value: '2x' },
      select: { kind: 'values', paths: ['n'], type: false },
    };
    const text = (placeholders: string[]) =>
      `SELECT x.id AS id, x.value AS sort_value FROM document_values x WHERE x.project_id = ${placeholders[0]} AND x.dataset = ${placeholders[1]} AND x.path = ${placeholders[2]} ` +
      `AND (x.value, x.id) > (${placeholders[3]}, ${placeholders[4]}) ORDER BY x.value, x.id LIMIT 3 OFFSET 0`;
    const plan: IndexPlan = { path: { kind: 'value-walk', path: 'n' }, filter: [] };
    expect(compiled('sqlite', query, plan)).toEqual({ text: text(Array(5).fill('?')), params: ['p', 'd', 'n', '2x', 'a'] });
    expect(compiled('postgres', query, plan)).toEqual({ text: text(['$1', '$2', '$3', '$4', '$5']), params: ['p', 'd', 'n', '2x', 'a'] });
  });

  it('reads the documents referencing one id in the order of its index, and several through their distinct ids', () => {
    const one: DocumentQuery = { where: { kind: 'references', ids: ['a'] }, order: byId, offset: 0, limit: 3, select: { kind: 'paths', paths: [['title']] } };
    expect(compiled('sqlite', one, { path: { kind: 'references', ids: ['a'] }, filter: [] }).text).toBe(
      "SELECT d.id AS id, d.type AS type, max(length(d.content), coalesce(d.heap_bytes, 0)) AS content_bytes, json_array((d.content->'$.title')) AS content FROM document_references x CROSS JOIN documents d " +
        'WHERE x.project_id = ? AND x.dataset = ? AND x.target_id = ? AND d.project_id = x.project_id AND d.dataset = x.dataset AND d.id = x.id ORDER BY x.id LIMIT 3 OFFSET 0',
    );
    const several: DocumentQuery = { where: { kind: 'references', ids: ['a', 'b'] }, order: byId, offset: 0, limit: null, select: { kind: 'count' } };
    expect(compiled('postgres', several, { path: { kind: 'references', ids: ['a', 'b'] }, filter: [] })).toEqual({
      text: 'SELECT COUNT(*) AS n FROM (SELECT DISTINCT project_id, dataset, id FROM document_references WHERE project_id = $1 AND dataset = $2 AND target_id IN ($3, $4)) x',
      params: ['p', 'd', 'a', 'b'],
    });
  });

  it('walks the entries table of some shapes, checking the rest on each entries row', () => {
    const query: DocumentQuery = { where: { kind: 'type', types: ['post'] }, order: byId, offset: 0, limit: 10, after: { id: 'x' }, select: { kind: 'values', paths: ['n'], type: false } };
    const plan: IndexPlan = { path: { kind: 'entries-walk', shapes: ['h1', 'h2'] }, filter: [{ kind: 'contains', path: 'title', texts: ['coffee'] }] };
    expect(compiled('postgres', query, plan)).toEqual({
      text:
        'SELECT e.id AS id, (e.vals->>($1::text)) COLLATE "C" AS v0 FROM document_entries e WHERE e.project_id = $2 AND e.dataset = $3 AND e.shape IN ($4, $5) ' +
        `AND (strpos(lower(replace(replace((e.vals->>($6::text)) COLLATE "C", $7, $8), '.', '')), $9) > 0) IS TRUE AND (e.id > $10) ORDER BY e.id LIMIT 10 OFFSET 0`,
      params: ['n', 'p', 'd', 'h1', 'h2', 'title', '\uffff', 'coffee', 'coffee', 'x'],
    });
    expect(compiled('sqlite', query, plan).text).toContain("(instr(lower(replace(replace(json_extract(e.vals, ?), ?, ?), '.', '')), ?) > 0) IS TRUE");
  });

  it('sorts the ids of a window of whole documents in a value order, then reads their content; down the values, split at the window\'s last value', () => {
    const query: DocumentQuery = { where: { kind: 'type', types: ['post'] }, order: { kind: 'value', path: 'day', descending: true }, offset: 0, limit: 20, select: { kind: 'content' } };
    const rows =
      'FROM document_values x CROSS JOIN documents d WHERE x.project_id = ? AND x.dataset = ? AND x.path = ? AND d.project_id = x.project_id AND d.dataset = x.dataset AND d.id = x.id AND d.type IN (?)';
    const pivot = '(SELECT MIN(sort_value) FROM walked)';
    const scoped = ['p', 'd', 'day', 'post'];
    expect(compiled('sqlite', query, { path: { kind: 'value-walk', path: 'day' }, filter: [{ kind: 'type', types: ['post'] }] })).toEqual({
      text:
        'SELECT d.id AS id, d.type AS type, max(length(d.content), coalesce(d.heap_bytes, 0)) AS content_bytes, json(d.content) AS content, w.sort_value AS sort_value FROM (' +
        `WITH walked AS MATERIALIZED (SELECT d.id AS id, x.value AS sort_value ${rows} ORDER BY x.value DESC LIMIT 20) SELECT * FROM walked WHERE sort_value > ${pivot} UNION ALL ` +
        `SELECT * FROM (SELECT d.id AS id, x.value AS sort_value ${rows} AND x.value = ${pivot} ORDER BY x.id LIMIT 20) t ORDER BY sort_value DESC, id LIMIT 20 OFFSET 0` +
        ') w CROSS JOIN documents d WHERE d.project_id = ? AND d.dataset = ? AND d.id = w.id ORDER BY w.sort_value DESC, w.id',
      params: [...scoped, ...scoped, 'p', 'd'],
    });
    // Up the values, ties come in the key's order: no split.
    const up = compiled('sqlite', { ...query, order: { ...query.order, descending: false } }, { path: { kind: 'value-walk', path: 'day' }, filter: [{ kind: 'type', types: ['post'] }] });
    expect(up.text).toContain(`SELECT d.id AS id, x.value AS sort_value ${rows} ORDER BY x.value, x.id LIMIT 20 OFFSET 0`);
  });

  it('counts up to the cap what each condition yields, and the documents of a type, in one statement', () => {
    const statement = compileCounts(scope, [
      { kind: 'rows', condition: { kind: 'value', path: 'views', low: { value: '2a', inclusive: true } } },
      { kind: 'documents', types: ['post'] },
      { kind: 'documents', types: null },
    ]);
    expect(compileSql(statement, sqlDialect('postgres').placeholder)).toEqual({
      text:
        'SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM document_values x WHERE x.project_id = $1 AND x.dataset = $2 AND x.path = $3 AND x.value >= $4 LIMIT 1000) p) AS c0, ' +
        '(SELECT COUNT(*) FROM documents d WHERE d.project_id = $5 AND d.dataset = $6 AND d.type IN ($7)) AS c1, (SELECT COUNT(*) FROM documents d WHERE d.project_id = $8 AND d.dataset = $9) AS c2',
      params: ['p', 'd', 'views', '2a', 'p', 'd', 'post', 'p', 'd'],
    });
  });
});
