// The query planner on the real store, on both engines: every write path keeps the document index
// in step, EXPLAIN output says what the index answered, large results stream, the index is rebuilt
// for documents written before it, and planned results equal the unplanned in-memory evaluation.
import fc from 'fast-check';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluate, type DocumentSource } from '../../src/groq/index.ts';
import { answerJson, StoreDocumentSource, type StoredDocument } from '../../src/store/index.ts';
import { useTestApp, type TestApp } from '../helpers/test-app.ts';
import { createProject, type TestProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';
import { PLANNER_PARAMS, plannerDataset, plannerQuery } from '../groq/planner-arbitraries.ts';

interface QueryBody {
  query?: string;
  ms: number;
  result: unknown;
  plan?: {
    rounds: number;
    pages: number;
    statements: number;
    scans: {
      scan: number;
      expression: string;
      index: { constraints: string[]; order: string | null; window: string | null; count: boolean; fields: string[] | '*' };
      evaluator: { filter: string[]; order: string | null; range: string | null };
      evaluations: number;
      candidates: number;
      matched: number;
      sql: string[];
    }[];
  };
}

/** Runs statements on the app's database behind its back (another connection). */
async function runDirectly(app: TestApp, statements: string[]): Promise<void> {
  if (app.db.engine === 'sqlite') {
    const db = new BetterSqlite3(join(app.db.dataDir, 'content.db'));
    db.pragma('busy_timeout = 5000');
    for (const sql of statements) db.exec(sql);
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: app.db.databaseUrl, options: `-c search_path=${app.db.schema!}` });
  await client.connect();
  for (const sql of statements) await client.query(sql);
  await client.end();
}

/** The first column of a statement's rows, run on the app's database directly. */
async function firstColumn(app: TestApp, sql: string): Promise<unknown[]> {
  if (app.db.engine === 'sqlite') {
    const db = new BetterSqlite3(join(app.db.dataDir, 'content.db'), { readonly: true });
    const values = db.prepare(sql).pluck().all();
    db.close();
    return values;
  }
  const client = new pg.Client({ connectionString: app.db.databaseUrl, options: `-c search_path=${app.db.schema!}` });
  await client.connect();
  const { rows } = await client.query<Record<string, unknown>>(sql);
  await client.end();
  return rows.map((row) => Object.values(row)[0]);
}

/** The statement that sums a path's value rows in SQL: one row, nothing ordered, no document or entries row read. */
const SUMMARY_SQL = /^SELECT COUNT\(x\.num\) AS n, (?:(?!ORDER BY|documents d|document_entries).)* FROM document_values x WHERE (?:(?!ORDER BY|documents d|document_entries).)*$/;
/** A page of a path's value rows, in value order; the value is the sort value, sent once. */
const WALK_SQL = /^SELECT x\.id AS id, x\.value AS sort_value FROM document_values x WHERE .*ORDER BY x\.value, x\.id/;
/** Where the engine reads beside the server's thread (PostgreSQL) it groups a path's value rows for array::unique; SQLite walks them a page at a time. */
const GROUPS_IN_SQL = testEngine === 'postgres';
/** One row per distinct value of a path's value rows, with the least id holding it: no document or entries row read. */
const FIRSTS_SQL = /^SELECT x\.value AS v0, MIN\(x\.id\) AS id FROM document_values x WHERE (?:(?!documents d|document_entries|ORDER BY).)* GROUP BY x\.value$/;

/** The store's source without DocumentSource.numbers: aggregates of numbers walk the value rows on every engine. */
function walkingOnly(store: StoreDocumentSource): DocumentSource {
  return {
    documents: () => store.documents(),
    getDocument: (id) => store.getDocument(id),
    load: () => store.load(),
    pages: (request) => store.pages(request),
    values: (request, path) => store.values(request, path),
  };
}

/** JSON through text, keys sorted: PostgreSQL's jsonb keeps keys in its own order. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])]));
  }
  return value ?? null;
}

describe(`query planner on the store (${testEngine})`, () => {
  const app = useTestApp();
  let project: TestProject;

  beforeAll(async () => {
    project = await createProject(app, app.admin, ['production', 'imported', 'big', 'events', 'mixed', 'search', 'parts', 'visits', 'floats', 'summed', 'many', 'few', 'longs', 'published', 'unique', 'hostile', 'numbers', 'generated']);
  });

  const query = (body: { query: string; params?: Record<string, unknown> }, qs = '', dataset = 'production') =>
    app.request<QueryBody>('POST', `/api/v1/data/query/${dataset}${qs}`, { token: app.admin, headers: { 'x-project': project.slug }, body });
  const result = async (text: string, params?: Record<string, unknown>, dataset = 'production') => ok(await query({ query: text, ...(params ? { params } : {}) }, '', dataset)).result;
  const explain = async (text: string, params?: Record<string, unknown>, dataset = 'production') =>
    ok(await query({ query: text, ...(params ? { params } : {}) }, '?explain=true', dataset));

  const importInto = async (dataset: string, docs: object[]) =>
    ok(
      await app.request('POST', `/api/v1/data/import/${dataset}`, {
        token: app.admin,
        headers: { 'x-project': project.slug, 'content-type': 'application/x-ndjson' },
        rawBody: docs.map((doc) => JSON.stringify(doc)).join('\n'),
      }),
    );

  it('keeps the index in step with mutations, publishing, restores and deletions', async () => {
    const data = dataClient(app, app.admin, project.slug);
    ok(
      await data.mutate([
        { createOrReplace: { _id: 'a1', _type: 'author', name: 'Ann' } },
        { createOrReplace: { _id: 'a2', _type: 'author', name: 'Bo' } },
        { createOrReplace: { _id: 'p1', _type: 'post', slug: { current: 'one' }, views: 10, author: { _type: 'reference', _ref: 'a1' } } },
        { createOrReplace: { _id: 'p2', _type: 'post', slug: { current: 'two' }, views: 30, author: { _type: 'reference', _ref: 'a1' } } },
      ]),
    );
    const bySlug = '*[_type == "post" && slug.current == $slug][0]._id';
    expect(await result('*[references("a1")]._id')).toEqual(['p1', 'p2']);
    expect(await result(bySlug, { slug: 'two' })).toBe('p2');
    expect(await result('*[_type == "post" && views > 20]._id')).toEqual(['p2']);

    // A patch moves a reference and a slug; the index follows.
    ok(await data.mutate([{ patch: { id: 'p2', set: { 'author._ref': 'a2', 'slug.current': 'deux', views: 5 } } }]));
    expect(await result('*[references("a1")]._id')).toEqual(['p1']);
    expect(await result('*[references("a2")]._id')).toEqual(['p2']);
    expect(await result(bySlug, { slug: 'two' })).toBeNull();
    expect(await result(bySlug, { slug: 'deux' })).toBe('p2');
    expect(await result('*[_type == "post" && views > 20]._id')).toEqual([]);

    // A draft, published: the draft's rows go, the published document's come.
    ok(await data.mutate([{ create: { _id: 'drafts.p3', _type: 'post', slug: { current: 'three' }, author: { _ref: 'a2' } } }]));
    expect(await result('*[references("a2")]._id')).toEqual(['drafts.p3', 'p2']);
    ok(await data.publish('p3'));
    expect(await result('*[references("a2")]._id')).toEqual(['p2', 'p3']);
    expect(await result(bySlug, { slug: 'three' })).toBe('p3');
    ok(await data.unpublish('p3'));
    expect(await result('*[references("a2")]._id')).toEqual(['drafts.p3', 'p2']);

    // Restoring an old revision writes its content as the draft, references included.
    const history = ok(await data.history('p2'));
    const first = history.revisions[history.revisions.length - 1]!;
    ok(await data.restore('p2', first.revision));
    expect(await result('*[references("a1")]._id')).toEqual(['drafts.p2', 'p1']);

    ok(await data.mutate([{ delete: { id: 'p1' } }, { delete: { id: 'drafts.p2' } }]));
    expect(await result('*[references("a1")]._id')).toEqual([]);
    expect(await result('count(*[_type == "post"])')).toBe(2);
  });

  it('indexes imported documents', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => JSON.stringify({ _id: `i${i}`, _type: i % 3 ? 'post' : 'author', rank: i, ref: { _ref: `i${i % 5}` } }));
    const response = await app.request('POST', '/api/v1/data/import/imported', {
      token: app.admin,
      headers: { 'x-project': project.slug, 'content-type': 'application/x-ndjson' },
      rawBody: lines.join('\n'),
    });
    expect(response.status).toBe(200);
    expect(await result('*[references("i0")]._id', undefined, 'imported')).toEqual(['i0', 'i10', 'i15', 'i20', 'i25', 'i5']);
    expect(await result('*[_type == "post" && rank >= 27] | order(rank desc)._id', undefined, 'imported')).toEqual(['i29', 'i28']);
    const planned = await explain('*[_type == "post"] | order(rank desc)[0...3]._id', undefined, 'imported');
    expect(planned.result).toEqual(['i29', 'i28', 'i26']);
    expect(planned.plan!.scans[0]).toMatchObject({ index: { constraints: ['_type == "post"'], order: 'rank desc', window: '[0...3]' }, candidates: 3 });
    // A lookup of one document is one statement: read whole, without reading the shapes first.
    const lookup = await explain('*[_type == "post" && rank == 28][0]{_id, rank}', undefined, 'imported');
    expect(lookup.result).toEqual({ _id: 'i28', rank: 28 });
    expect(lookup.plan!.statements).toBe(1);
    // Whole too: nothing is read ahead past the one document (on PostgreSQL it was a second statement).
    const whole = await explain('*[_type == "post" && rank == 28][0]', undefined, 'imported');
    expect((whole.result as { _id: string })._id).toBe('i28');
    expect(whole.plan!.statements).toBe(1);
    const two = await explain('*[_type == "post" && rank >= 28][0...2]{_id, rank}', undefined, 'imported');
    expect(two.result).toEqual([
      { _id: 'i28', rank: 28 },
      { _id: 'i29', rank: 29 },
    ]);
    // The shapes, a probe of which of the type and the range yields fewer, the window.
    expect(two.plan!.statements).toBe(3);
    // A count selects nothing: one statement, without reading the shapes. With a value conjunct
    // the shapes are read first: they tell whether the value's path implies the type.
    const counted = await explain('count(*[_type == "post"])', undefined, 'imported');
    expect(counted.result).toBe(20);
    expect(counted.plan!.statements).toBe(1);
    const ranked = await explain('count(*[_type == "post" && rank == 20])', undefined, 'imported');
    expect(ranked.result).toBe(1);
    expect(ranked.plan!.statements).toBe(2);
    // Values from a list (`slug.current in [...]`) are looked up in the value index, not found by
    // reading every document of the type.
    const listed = await explain('*[_type == "post" && rank in [3, 4, 7, 99]] | order(_id)._id', undefined, 'imported');
    expect(listed.result).toEqual(['i4', 'i7']);
    expect(listed.plan!.scans[0]!.sql.join('\n')).toMatch(/FROM document_values x .*x\.value IN \(/);
  });

  it('indexes a large import the way it indexes a few documents (rows expanded by the database, or bound)', async () => {
    // 100 new documents in one batch have their value and reference rows expanded by the
    // database; the same documents written three at a time have theirs bound (index-writer.ts).
    const documents = Array.from({ length: 100 }, (_, i) => ({ _id: `m${i}`, _type: 'item', rank: i, tag: `t${i % 7}`, ref: { _ref: `m${i % 9}` } }));
    const response = await app.request('POST', '/api/v1/data/import/many', {
      token: app.admin,
      headers: { 'x-project': project.slug, 'content-type': 'application/x-ndjson' },
      rawBody: documents.map((document) => JSON.stringify(document)).join('\n'),
    });
    expect(response.status).toBe(200);
    const few = dataClient(app, app.admin, project.slug, 'few');
    for (let i = 0; i < documents.length; i += 3) ok(await few.mutate(documents.slice(i, i + 3).map((document) => ({ create: document }))));
    const questions = ['*[references("m4")]._id', '*[_type == "item" && tag == "t3" && rank > 50]._id', '*[_type == "item"] | order(rank desc)[0...4]._id', 'count(*[_type == "item" && defined(ref)])'];
    for (const question of questions) {
      const imported = await result(question, undefined, 'many');
      expect(imported).toEqual(await result(question, undefined, 'few'));
      expect(imported).not.toEqual([]);
    }
  });

  it('explains what the index answered and what the evaluator did', async () => {
    const text = '*[_type == "author"]{name, "posts": *[references(^._id) && _type == "post" && slug.current match "t*"][0...2]._id, "n": count(*[references(^._id)])}';
    const body = await explain(text);
    expect(body.result).toEqual([
      { name: 'Ann', posts: [], n: 0 },
      { name: 'Bo', posts: ['drafts.p3'], n: 2 },
    ]);
    const [outer, posts, count] = body.plan!.scans;
    expect(outer).toMatchObject({ expression: '*[_type == "author"]', index: { constraints: ['_type == "author"'], fields: ['name', '_id'] }, evaluations: 1, matched: 2 });
    expect(outer!.sql.length).toBeGreaterThan(0);
    expect(outer!.sql[0]).toMatch(/^SELECT /);
    // The match is evaluated on the candidates, so the window is not left to the index.
    expect(posts).toMatchObject({
      index: { constraints: ['references(^._id)', '_type == "post"'], window: null },
      evaluator: { filter: ['slug.current match "t*"'], range: '[0...2]' },
      evaluations: 2,
    });
    expect(count).toMatchObject({ index: { constraints: ['references(^._id)'], count: true }, evaluations: 2 });
    expect(body.plan!.rounds).toBeGreaterThanOrEqual(2);
    // Statements as sent: the shapes, the authors, then each subquery's queries for both authors
    // as one statement.
    const counted = await explain('*[_type == "author"]{name, "n": count(*[references(^._id)])}');
    expect(counted.result).toEqual([
      { name: 'Ann', n: 0 },
      { name: 'Bo', n: 2 },
    ]);
    expect(counted.plan!.statements).toBe(3);
    // Without ?explain=true there is no plan.
    expect(ok(await query({ query: text })).plan).toBeUndefined();
  });

  it('streams results made document by document, in order, a page at a time', async () => {
    const lines = Array.from({ length: 2600 }, (_, i) => JSON.stringify({ _id: `doc-${String(i).padStart(5, '0')}`, _type: i % 2 ? 'odd' : 'even', n: i, tags: [i % 7] }));
    ok(
      await app.request('POST', '/api/v1/data/import/big', {
        token: app.admin,
        headers: { 'x-project': project.slug, 'content-type': 'application/x-ndjson' },
        rawBody: lines.join('\n'),
      }),
    );
    const body = await explain('*[_type == "even"]{_id, n, "t": tags[0]}', undefined, 'big');
    const items = body.result as { _id: string; n: number; t: number }[];
    expect(items).toHaveLength(1300);
    expect(items[0]).toEqual({ _id: 'doc-00000', n: 0, t: 0 });
    expect(items.map((item) => item.n)).toEqual(Array.from({ length: 1300 }, (_, i) => i * 2));
    expect(body.plan!.pages).toBeGreaterThan(1);
    expect(typeof body.ms).toBe('number');
    // Aggregates over such scans stream too; their value is what the whole result gives.
    expect(await result('math::sum(*[_type == "odd"].n)', undefined, 'big')).toBe(1690000);
    expect(await result('count(*[_type == "odd" && n match "1*"])', undefined, 'big')).toBe(0);
    expect(await result('count(*[tags[0] == 3])', undefined, 'big')).toBe(Array.from({ length: 2600 }, (_, i) => i % 7).filter((t) => t === 3).length);
  });

  it('sums a type\'s values walking their index in any order, and in dataset order when that sum would differ', async () => {
    const counts = Array.from({ length: 2500 }, (_, i) => (i * 7919) % 1000);
    await importInto('visits', [...counts.map((count, i) => ({ _id: `v${String(i).padStart(5, '0')}`, _type: 'visit', count })), { _id: 'x1', _type: 'other', label: 'none' }]);
    const sum = await explain('math::sum(*[_type == "visit"].count)', undefined, 'visits');
    expect(sum.result).toBe(counts.reduce((a, b) => a + b, 0));
    // The count values' rows, summed by the database: no document or entries row is read.
    const [sql] = sum.plan!.scans[0]!.sql;
    expect(sql).toMatch(SUMMARY_SQL);
    expect(sql).not.toMatch(/document_entries|documents d/);
    // A page at a time, each after the last (value, id) of the one before: many values are tied
    // across the pages' edges, and every row is read once.
    const store = new StoreDocumentSource(app.services.store, project.id, 'visits', { pageSizes: { documents: 100, values: 300 } });
    const walked = walkingOnly(store);
    expect(await evaluate('math::sum(*[_type == "visit"].count)', { source: walked })).toBe(counts.reduce((a, b) => a + b, 0));
    const pages = [...store.reports.values()][0]!.queries;
    expect(pages).toHaveLength(Math.ceil(counts.length / 300));
    expect(pages.slice(1).every((page) => page.after !== undefined)).toBe(true);
    // The values themselves go to the sum, no document is assembled for them; a string too long
    // for the index to hold whole is read from its document.
    const long = 'x'.repeat(400);
    await importInto('longs', [{ _id: 'l1', _type: 'l', n: 2 }, { _id: 'l2', _type: 'l', n: long }, { _id: 'l3', _type: 'l' }]);
    const longs = walkingOnly(new StoreDocumentSource(app.services.store, project.id, 'longs'));
    const given: unknown[] = [];
    const recording: DocumentSource = {
      ...longs,
      async values(request, path) {
        const values = await longs.values!(request, path);
        return (
          values &&
          (async function* () {
            for await (const page of values) yield (given.push(...page), page);
          })()
        );
      },
    };
    expect(await evaluate('math::sum(*[_type == "l"].n)', { source: recording })).toBeNull();
    expect(given).toHaveLength(2);
    expect(given).toEqual(expect.arrayContaining([2, long]));
    // A perspective's conditions on ids hold on the value rows too, which carry the id: a sum of
    // published documents walks them as well, leaving the drafts out.
    await importInto('published', [{ _id: 'p1', _type: 'p', n: 3 }, { _id: 'drafts.p1', _type: 'p', n: 30 }, { _id: 'p2', _type: 'p', n: 4 }]);
    const sumOf = (perspective: string) => query({ query: 'math::sum(*[_type == "p"].n)' }, `?explain=true&perspective=${perspective}`, 'published').then(ok);
    const published = await sumOf('published');
    expect(published.result).toBe(7);
    expect(published.plan!.scans[0]!.sql[0]).toMatch(SUMMARY_SQL);
    expect(published.plan!.scans[0]!.sql[0]).toMatch(/FROM document_values x WHERE .*NOT \(\(x\.id >= /);
    expect((await sumOf('raw')).result).toBe(37);
    expect(await result('math::avg(*[_type == "visit"].count)', undefined, 'visits')).toBe(counts.reduce((a, b) => a + b, 0) / counts.length);
    expect(await result('math::max(*[_type == "visit"].count)', undefined, 'visits')).toBe(999);
    expect(await result('math::min(*[_type == "visit"].count)', undefined, 'visits')).toBe(0);
    // Floating-point addition in value order would give 1e16 + 2: the terms are taken again in dataset order.
    await importInto('floats', [{ _id: 'f1', _type: 'f', n: 1e16 }, { _id: 'f2', _type: 'f', n: 1 }, { _id: 'f3', _type: 'f', n: 1 }]);
    const floats = await explain('math::sum(*[_type == "f"].n)', undefined, 'floats');
    expect(floats.result).toBe(1e16);
    expect(floats.plan!.pages).toBe(2);
    expect(await result('math::avg(*[_type == "f"].n)', undefined, 'floats')).toBe(1e16 / 3);
    // An object at the path is not a value row, and makes the sum null: such a type is not walked.
    await importInto('summed', [{ _id: 'm1', _type: 'm', n: 1 }, { _id: 'm2', _type: 'm', n: { a: 1 } }, { _id: 'm3', _type: 'm' }]);
    const mixed = await explain('math::sum(*[_type == "m"].n)', undefined, 'summed');
    expect(mixed.result).toBeNull();
    expect(mixed.plan!.scans[0]!.sql.join('\n')).not.toMatch(/ORDER BY x\.value/);
    // Nor where another type has values at the path: the walk would yield them too. Pages in
    // dataset order are not asked for again, whatever their sum.
    await importInto('summed', [{ _id: 'o1', _type: 'o', n: 5 }, { _id: 'o2', _type: 'o', n: 0.5 }]);
    const other = await explain('math::sum(*[_type == "o"].n)', undefined, 'summed');
    expect(other.result).toBe(5.5);
    expect(other.plan!.pages).toBe(1);
    expect(other.plan!.scans[0]!.sql.join('\n')).not.toMatch(/ORDER BY x\.value/);
    for (const q of ['math::sum(*[_type == "visit"].count)', 'math::avg(*[_type == "visit"].count)']) {
      expect(await result(q, undefined, 'visits')).toEqual(await evaluate(q, { dataset: [...counts.map((count, i) => ({ _id: `v${String(i).padStart(5, '0')}`, _type: 'visit', count }))], planner: false }));
    }
  });

  it('sums, averages and bounds a path\'s numbers where they are stored, as the unplanned evaluation does', async () => {
    // One path per case: a walk of a path's value rows needs them all to be of the queried type.
    const docs = [
      { _id: 'i1', _type: 'n', ints: 7, fracs: 0.1, big: 2 ** 53 - 1, tiny: 5e-324, huge: 1.7976931348623157e308, over: 1.7e308, mixed: 3, flags: 2 },
      { _id: 'i2', _type: 'n', ints: -12, fracs: -0.2, big: 1, tiny: -5e-324, huge: -1e-300, over: 1.7e308, mixed: 'three', flags: true },
      { _id: 'i3', _type: 'n', ints: 0, fracs: 2.5, big: 1, tiny: 2.2250738585072014e-308 },
      { _id: 'i4', _type: 'n', ints: null, big: -1 },
      { _id: 'drafts.i1', _type: 'n', ints: 1000, fracs: 1e-9 },
      { _id: 'i5', _type: 'n' },
    ];
    await importInto('numbers', docs);
    const sorted = [...docs].sort((a, b) => (a._id < b._id ? -1 : 1));
    const published = sorted.filter((doc) => !doc._id.startsWith('drafts.'));
    // `over` adds up past the largest double: null in GROQ, and no error in SQL.
    for (const path of ['ints', 'fracs', 'big', 'tiny', 'huge', 'over', 'mixed', 'flags', 'absent']) {
      for (const f of ['math::sum', 'math::avg', 'math::min', 'math::max']) {
        const text = `${f}(*[_type == "n"].${path})`;
        expect(await result(text, undefined, 'numbers'), text).toEqual(await evaluate(text, { dataset: sorted, planner: false }));
        const answer = await query({ query: text }, '?perspective=published', 'numbers');
        expect(ok(answer).result, `${text}, published`).toEqual(await evaluate(text, { dataset: published, planner: false }));
      }
    }
    // Integers (or the bounds of any numbers): the database's one row is the answer. A sum with
    // fractions, or whose terms' magnitudes add up past 2^53 - 1, may depend on their order: the
    // value rows are walked, then the documents read in dataset order.
    const statements = async (text: string) => (await explain(text, undefined, 'numbers')).plan!.scans[0]!.sql;
    for (const text of ['math::sum(*[_type == "n"].ints)', 'math::avg(*[_type == "n"].ints)', 'math::min(*[_type == "n"].fracs)', 'math::max(*[_type == "n"].huge)']) {
      const sql = await statements(text);
      expect(sql, text).toEqual([expect.stringMatching(SUMMARY_SQL)]);
    }
    for (const text of ['math::sum(*[_type == "n"].fracs)', 'math::sum(*[_type == "n"].big)']) {
      const sql = await statements(text);
      expect(sql.filter((statement) => SUMMARY_SQL.test(statement)), text).toHaveLength(1);
      expect(sql.some((statement) => WALK_SQL.test(statement)), text).toBe(true);
    }
    // The order matters here: (2^53 - 1) + 1 + 1 - 1 in dataset order, -1 + 1 + 1 + (2^53 - 1) in value order.
    expect(await result('math::sum(*[_type == "n"].big)', undefined, 'numbers')).toBe(2 ** 53 - 1);
  });

  it('gives the unplanned evaluation\'s math:: aggregates of generated numbers', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: -1e6, max: 1e6 }), fc.constant(null)), { maxLength: 6 }),
        async (values) => {
          // A path of its own per run, so that its value rows stand for the type's documents.
          const path = `n${++run}`;
          // As the server reads them (-0 is 0 in JSON).
          const docs = JSON.parse(JSON.stringify(values.map((value, i) => ({ _id: `g${run}.${i}`, _type: 'g', ...(value === null ? {} : { [path]: value }) })))) as { _id: string }[];
          if (docs.length > 0) await importInto('generated', docs);
          for (const f of ['math::sum', 'math::avg', 'math::min', 'math::max']) {
            const text = `${f}(*[_type == "g"].${path})`;
            expect(await result(text, undefined, 'generated'), text).toEqual(await evaluate(text, { dataset: docs, planner: false }));
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('answers array::unique of one path\'s values from the index, in the order of their first documents', async () => {
    const long = 'y'.repeat(300);
    const docs = [
      { _id: 'u01', _type: 'u', tag: 'b' },
      { _id: 'u02', _type: 'u' },
      { _id: 'u03', _type: 'u', tag: 'a' },
      { _id: 'u04', _type: 'u', tag: 'b' },
      { _id: 'u05', _type: 'u', tag: 3 },
      { _id: 'u06', _type: 'u', tag: true },
      { _id: 'u07', _type: 'u', tag: 3 },
      { _id: 'drafts.u03', _type: 'u', tag: 'z' },
      { _id: 'w1', _type: 'w', label: long },
      { _id: 'w2', _type: 'w', label: `${long}!` },
      { _id: 'w3', _type: 'w', label: long },
    ];
    ok(
      await app.request('POST', '/api/v1/data/import/unique', {
        token: app.admin,
        headers: { 'x-project': project.slug, 'content-type': 'application/x-ndjson' },
        rawBody: docs.map((doc) => JSON.stringify(doc)).join('\n'),
      }),
    );
    const unique = (text: string, perspective = 'raw') => query({ query: text }, `?explain=true&perspective=${perspective}`, 'unique').then(ok);
    // The dataset's order is its ids'.
    const unplanned = async (text: string) => evaluate(text, { dataset: [...docs].sort((a, b) => (a._id < b._id ? -1 : 1)), planner: false });
    // u02 has no tag: its null comes where u02 is, after b; drafts come before the published ids.
    const tags = await unique('array::unique(*[_type == "u"].tag)');
    expect(tags.result).toEqual(['z', 'b', null, 'a', 3, true]);
    expect(tags.result).toEqual(await unplanned('array::unique(*[_type == "u"].tag)'));
    // The value rows, grouped by value with their least id, or walked in (value, id) order a page
    // at a time: either way the first row of each value is its first document.
    expect(tags.plan!.scans[0]!.sql[0]).toMatch(GROUPS_IN_SQL ? FIRSTS_SQL : WALK_SQL);
    // Pages of two rows (3 3 | a b | b z | true): the run of b crosses a page's edge. Grouped, one statement.
    const paged = new StoreDocumentSource(app.services.store, project.id, 'unique', { pageSizes: { documents: 2, values: 2 } });
    expect(await evaluate('array::unique(*[_type == "u"].tag)', { source: paged })).toEqual(tags.result);
    const statements = [...paged.reports.values()][0]!.queries.length;
    if (GROUPS_IN_SQL) expect(statements).toBe(2);
    else expect(statements).toBeGreaterThan(3);
    // The published perspective's conditions on ids are applied to the value rows.
    const published = await unique('array::unique(*[_type == "u"].tag)', 'published');
    expect(published.result).toEqual(['b', null, 'a', 3, true]);
    expect(published.plan!.scans[0]!.sql[0]).toMatch(/FROM document_values x WHERE .*NOT \(\(x\.id >= /);
    expect(published.plan!.scans[0]!.sql[0]).toMatch(GROUPS_IN_SQL ? FIRSTS_SQL : WALK_SQL);
    // Strings the index holds only the start of may differ past it: the documents are read, in id order.
    const labels = await unique('array::unique(*[_type == "w"].label)');
    expect(labels.result).toEqual([long, `${long}!`]);
    expect(labels.plan!.scans[0]!.sql.join('\n')).not.toMatch(/ORDER BY x\.value/);
  });

  it('reads aggregates of attributes named like Object.prototype\'s as data, from the index as without it', async () => {
    // Request data never holds a `__proto__` key; the others are attributes like any.
    const lines = [
      '{"_id":"h1","_type":"h","constructor":"a","toString":1,"valueOf":2}',
      '{"_id":"h2","_type":"h","constructor":"b","valueOf":3}',
      '{"_id":"h3","_type":"h","hasOwnProperty":true}',
    ];
    ok(
      await app.request('POST', '/api/v1/data/import/hostile', {
        token: app.admin,
        headers: { 'x-project': project.slug, 'content-type': 'application/x-ndjson' },
        rawBody: lines.join('\n'),
      }),
    );
    const dataset = lines.map((line) => JSON.parse(line) as unknown);
    for (const text of [
      'math::sum(*[_type == "h"].__proto__)',
      'array::unique(*[_type == "h"].__proto__)',
      'math::max(*[_type == "h"].toString)',
      'math::sum(*[_type == "h"].valueOf)',
      'array::unique(*[_type == "h"].constructor)',
      'array::unique(*[_type == "h"].hasOwnProperty)',
    ]) {
      const answer = await query({ query: text }, '', 'hostile');
      expect(answer.status, text).toBe(200);
      expect(answer.body.result, text).toEqual(await evaluate(text, { dataset, planner: false }));
    }
    const summed = await explain('math::sum(*[_type == "h"].valueOf)', undefined, 'hostile');
    expect(summed.result).toBe(5);
    expect(summed.plan!.scans[0]!.sql[0]).toMatch(SUMMARY_SQL);
    expect(await result('array::unique(*[_type == "h"].constructor)', undefined, 'hostile')).toEqual(['a', 'b', null]);
  });

  it('checks no type where only the queried type has the path whose values drive the query', async () => {
    // More events than a probe counts, so that a walk of values drives rather than the type.
    const lines = [
      ...Array.from({ length: 1200 }, (_, i) => ({ _id: `e${String(i).padStart(5, '0')}`, _type: 'event', starts: `s${String(i).padStart(5, '0')}`, day: i % 2 })),
      { _id: 'm1', _type: 'memo', day: 9 },
    ];
    ok(
      await app.request('POST', '/api/v1/data/import/events', {
        token: app.admin,
        headers: { 'x-project': project.slug, 'content-type': 'application/x-ndjson' },
        rawBody: lines.map((line) => JSON.stringify(line)).join('\n'),
      }),
    );
    const sql = (body: QueryBody) => body.plan!.scans[0]!.sql.join('\n');
    // Only events have `starts`: the walk of its values reads no documents row for the type.
    const implied = await explain('*[_type == "event"] | order(starts desc)[0...2]._id', undefined, 'events');
    expect(implied.result).toEqual(['e01199', 'e01198']);
    expect(implied.plan!.scans[0]).toMatchObject({ index: { constraints: ['_type == "event"'], order: 'starts desc', window: '[0...2]' } });
    expect(sql(implied)).toMatch(/document_values/);
    expect(sql(implied)).not.toMatch(/type IN/);
    // A memo has a `day` too: the type is checked, and the memo left out.
    const checked = await explain('*[_type == "event"] | order(day desc)[0...2]._id', undefined, 'events');
    expect(checked.result).toEqual(['e00001', 'e00003']);
    expect(sql(checked)).toMatch(/type IN/);
    // A range likewise: the value rows alone answer it, and hold the values it selects.
    const range = await explain('*[_type == "event" && starts >= "s01198"]{_id, starts}', undefined, 'events');
    expect(range.result).toEqual([
      { _id: 'e01198', starts: 's01198' },
      { _id: 'e01199', starts: 's01199' },
    ]);
    expect(sql(range)).not.toMatch(/type IN|document_entries/);
    const memos = await explain('*[_type == "event" && day >= 5]{_id, day}', undefined, 'events');
    expect(memos.result).toEqual([]);
    expect(sql(memos)).toMatch(/type IN/);
  });

  it('scans the values of a type that is most of the dataset by walking the entries table', async () => {
    const lines: { _id: string; _type: string; n: number; label?: unknown }[] = Array.from({ length: 2300 }, (_, i) => ({
      _id: `x${String(i).padStart(5, '0')}`,
      _type: i % 2 ? 'minor' : 'major',
      n: i,
      ...(i % 20 === 0 ? {} : { label: `l${i}` }),
    }));
    lines.push({ _id: 'y00000', _type: 'major', n: 9999, label: { text: 'an object' } });
    ok(
      await app.request('POST', '/api/v1/data/import/mixed', {
        token: app.admin,
        headers: { 'x-project': project.slug, 'content-type': 'application/x-ndjson' },
        rawBody: lines.map((line) => JSON.stringify(line)).join('\n'),
      }),
    );
    const sqlOf = (body: QueryBody) => body.plan!.scans[0]!.sql;
    // 1,151 of 2,301: after a first full page, the pages walk document_entries by the type's shapes.
    const major = await explain('*[_type == "major"]{_id, n}', undefined, 'mixed');
    expect(major.result).toEqual([
      ...Array.from({ length: 1150 }, (_, k) => ({ _id: `x${String(2 * k).padStart(5, '0')}`, n: 2 * k })),
      { _id: 'y00000', n: 9999 },
    ]);
    expect(major.plan!.pages).toBe(2);
    expect(sqlOf(major)[0]).toMatch(/FROM documents d/);
    expect(sqlOf(major)[1]).toMatch(/FROM document_entries e WHERE .*e\.shape IN/);
    expect(sqlOf(major)[1]).not.toMatch(/documents d/);
    // Other conditions the entries row answers go along: defined() is a set of the type's shapes.
    const labelled = await explain('*[_type == "major" && defined(label)]{_id, n}', undefined, 'mixed');
    const expected = lines.filter((line) => line._type === 'major' && 'label' in line).map((line) => line.n);
    expect(expected.length).toBeGreaterThan(1000);
    expect((labelled.result as { n: number }[]).map((item) => item.n)).toEqual(expected);
    expect(sqlOf(labelled)[1]).toMatch(/FROM document_entries e WHERE .*e\.shape IN .*e\.shape IN/);
    expect(await result('count(*[_type == "major" && defined(label)])', undefined, 'mixed')).toBe(expected.length);
    // 1,150 of 2,301, under half: its own index, which finds them without walking the others.
    const minor = await explain('*[_type == "minor"]{_id, n}', undefined, 'mixed');
    expect((minor.result as unknown[]).length).toBe(1150);
    expect(sqlOf(minor).every((sql) => /FROM documents d/.test(sql))).toBe(true);
    // Ids alone come from the type's index, which holds them.
    const ids = await explain('*[_type == "major"]._id', undefined, 'mixed');
    expect((ids.result as unknown[]).length).toBe(1151);
    expect(sqlOf(ids).every((sql) => !/document_entries/.test(sql))).toBe(true);
  });

  it('narrows `match` by the text its pattern needs, and finds every document that matches', async () => {
    // Texts on the edges of the comparison (dots removed at word edges, case, letters whose upper
    // case is ASCII, text past what the index holds, arrays of strings), before and after more
    // posts than a first page, so that both the type's index and the entries walk narrow.
    const edges: Record<string, unknown>[] = [
      { title: 'cof.fee time' },
      { title: 'Coffee' },
      { title: 'COFFEE.' },
      { title: 'decaf' },
      { title: `${'x'.repeat(170)} coffee` },
      { title: '\u017Ftop \u212Aelvin' },
      { title: 'CAFÉ bar' },
      { title: 'café' },
      { title: ['morning coffee', 'tea'] },
      { title: 42 },
      { title: { en: 'coffee' } },
      {},
    ];
    const documents = [
      ...edges.map((doc, i) => ({ _id: `a${String(i).padStart(2, '0')}`, _type: 'post', ...doc })),
      ...Array.from({ length: 1200 }, (_, i) => ({ _id: `m${String(i).padStart(5, '0')}`, _type: 'post', title: `filler ${i}`, note: `n${i}` })),
      ...edges.map((doc, i) => ({ _id: `z${String(i).padStart(2, '0')}`, _type: 'post', ...doc })),
      { _id: 'other', _type: 'page', title: 'coffee' },
    ];
    ok(
      await app.request('POST', '/api/v1/data/import/search', {
        token: app.admin,
        headers: { 'x-project': project.slug, 'content-type': 'application/x-ndjson' },
        rawBody: documents.map((doc) => JSON.stringify(doc)).join('\n'),
      }),
    );
    const stored = JSON.parse(JSON.stringify(documents)) as Record<string, unknown>[];
    const queries = [
      '*[_type == "post" && title match "coffee"]._id',
      '*[_type == "post" && title match $q]._id',
      '*[_type == "post" && title match "café"]._id',
      '*[_type == "post" && title match "stop"]._id',
      '*[_type == "post" && title match "kelvin"]._id',
      '*[_type == "post" && title match ["cof*", "time"]]._id',
      '*[_type == "post" && title match "x*"]._id',
      'count(*[_type == "post" && (title match "decaf" || title match "coffee")])',
      '*[title match "coffee" && !(_type == "post")]._id',
      '*[_type == "post" && title match 1]._id',
    ];
    for (const text of queries) {
      const expected = await evaluate(text, { dataset: stored, params: { q: 'COFFEE' }, planner: false });
      expect({ text, result: await result(text, { q: 'COFFEE' }, 'search') }).toEqual({ text, result: expected });
    }
    // The index lets through the texts holding "coffee" and those it cannot tell (a long text, an
    // array): the evaluator checks each, and finds the filler none of them.
    const narrowed = await explain('*[_type == "post" && title match "coffee"]._id', undefined, 'search');
    expect(narrowed.plan!.scans[0]).toMatchObject({ index: { constraints: ['_type == "post"'] }, evaluator: { filter: ['title match "coffee"'] } });
    // Of each twelve edge cases: the three texts holding "coffee", the long text and the array.
    expect(narrowed.plan!.scans[0]!.candidates).toBe(10);
    expect(narrowed.plan!.scans[0]!.sql.join('\n')).toMatch(/(instr|strpos)\(lower\(replace/);
    // Posts are most of the dataset: where values stand for the path (strings or nothing in every
    // document), the entries table is walked from the first page on, not only after a first page
    // found through the type's index (which could walk thousands of posts to fill it).
    const walked = await explain('*[_type == "post" && note match "n1199"]._id', undefined, 'search');
    expect(walked.result).toEqual(['m01199']);
    expect(walked.plan!.scans[0]!.sql[0]).toMatch(/FROM document_entries e WHERE .*e\.shape IN/);
  });

  it('reads only the attributes and elements a query uses, every kind of value intact', async () => {
    const cards = [1, 2, 3].map((n) => ({
      _id: `card${n}`,
      _type: 'card',
      n,
      obj: { a: { b: [n, 'x', null, true] }, 'k"q': { '': n } },
      arr: [1e21, 2 ** 53 + 2, -1e-7, 0.1, -1.5e-300, n],
      s: `quote" back\\ é \u{1F600} \u2028 ${n}`,
      flag: n === 2,
      nul: null,
      'odd key': { v: `odd ${n}` },
      zero: { 0: 'not an element' },
      body: 'b'.repeat(5000),
    }));
    ok(
      await app.request('POST', '/api/v1/data/import/parts', {
        token: app.admin,
        headers: { 'x-project': project.slug, 'content-type': 'application/x-ndjson' },
        rawBody: cards.map((card) => JSON.stringify(card)).join('\n'),
      }),
    );
    const text = '*[_type == "card"] | order(n desc)[0...2]{_id, _type, obj, arr, s, flag, nul, missing, "deep": obj.a.b[3]}';
    const body = await explain(text, undefined, 'parts');
    expect(body.result).toEqual(
      [cards[2]!, cards[1]!].map(({ _id, _type, obj, arr, s, flag }) => ({ _id, _type, obj, arr, s, flag, nul: null, missing: null, deep: true })),
    );
    // The window's statement selects those attributes, not the documents with their bodies.
    const sql = body.plan!.scans[0]!.sql.join('\n');
    // (PostgreSQL reads several paths from a copy `c` of the content decompressed once.)
    expect(sql).toMatch(/json(b_build)?_array\(.*(d\.content|\bc)->'(\$\.)?obj'/);
    expect(sql).not.toMatch(/d\.content\)? AS content/);
    // Elements by index: those elements are read, not their arrays.
    const elementsText = '*[_type == "card"] | order(n)[0...3]{"first": arr[0], "second": arr[1], "b": obj.a.b[3], "none": arr[9], "inner": arr[0][0], "s": s[0], "z": zero[0]}';
    const elements = await explain(elementsText, undefined, 'parts');
    expect(elements.result).toEqual(cards.map(() => ({ first: 1e21, second: 2 ** 53 + 2, b: true, none: null, inner: null, s: null, z: null })));
    const elementsSql = elements.plan!.scans[0]!.sql.join('\n');
    const postgres = app.db.engine === 'postgres';
    expect(elementsSql).toContain(postgres ? `'strict $."obj"."a"."b"[3]'` : "d.content->'$.obj.a.b[3]'");
    expect(elementsSql).toContain(postgres ? `'strict $."arr"[1]'` : "d.content->'$.arr[1]'");
    expect(elementsSql).not.toMatch(postgres ? /(d\.content|\bc)->'arr'[,)]/ : /'\$\.arr'/);
    // A lookup of one document reads its attributes without the dataset's shapes.
    const one = await explain('*[_id == "card1"][0]{s, "k": obj["k\\"q"]}', undefined, 'parts');
    expect(one.result).toEqual({ s: cards[0]!.s, k: { '': 1 } });
    expect(one.plan!.statements).toBe(1);
    // An attribute that is no identifier is not named in SQL: the document is read whole.
    const odd = await explain('*[_type == "card" && n == 3]{"o": @["odd key"]}', undefined, 'parts');
    expect(odd.result).toEqual([{ o: { v: 'odd 3' } }]);
    expect(odd.plan!.scans[0]!.sql.join('\n')).toMatch(/(?:json\(d\.content\)|d\.content) AS content/);
    // Planned and unplanned evaluation agree on all of it.
    for (const q of [text, elementsText, '*[_type == "card"]{n, obj, "b": count(arr), "l": arr[-1]}', '*[_type == "card"][1]{"t": _type, arr}']) {
      expect(canonical(await result(q, undefined, 'parts'))).toEqual(canonical(await evaluate(q, { dataset: cards, planner: false })));
    }
  });

  it('plans the published perspective: drafts left out by the index', async () => {
    const response = await app.request<QueryBody>('POST', '/api/v1/data/query/production?perspective=published&explain=true', {
      token: app.admin,
      headers: { 'x-project': project.slug },
      body: { query: '*[references("a2")]._id' },
    });
    expect(ok(response).result).toEqual(['p2']);
    expect(ok(response).plan!.scans[0]).toMatchObject({ index: { constraints: ['references("a2")'] }, candidates: 1 });
  });

  it('rebuilds the index of documents written before it existed', async () => {
    const store = app.services.store;
    const before = await result('*[references("a2")]._id');
    // The visits (2,500 documents): their value rows are written once, sorted, at the end of the rebuild.
    const visits = () => result('*[_type == "visit" && count == 999]._id', undefined, 'visits');
    const visitsBefore = await visits();
    expect(visitsBefore).toHaveLength(3);
    // Back to the state after migration 006 on an older database: documents, no index rows.
    await runDirectly(app, [
      'DELETE FROM document_values',
      'DELETE FROM document_entries',
      'DELETE FROM document_references',
      'DELETE FROM document_shapes',
      "UPDATE document_index_state SET value = '0' WHERE name = 'version'",
    ]);
    expect(await result('*[references("a2")]._id')).toEqual([]);
    await store.migrate();
    expect(await result('*[references("a2")]._id')).toEqual(before);
    expect(await visits()).toEqual(visitsBefore);
    expect(await result('*[_type == "post"] | order(rank desc)[0]._id', undefined, 'imported')).toBe('i29');
  });

  it('reads documents stored before migration 7, which stores them as JSONB (SQLite) or compresses them with lz4 (PostgreSQL)', async () => {
    const query = '*[_type == "post"] | order(_id){_id, rank, "author": author->name}';
    const before = await result(query);
    const sqlite = app.db.engine === 'sqlite';
    // How documents.content is stored: SQLite's type of each row's value, PostgreSQL's compression of the column.
    const storage = () =>
      firstColumn(app, sqlite ? 'SELECT DISTINCT typeof(content) FROM documents' : "SELECT attcompression FROM pg_attribute WHERE attrelid = 'documents'::regclass AND attname = 'content'");
    // As a database written before migration 7.
    await runDirectly(app, [sqlite ? 'UPDATE documents SET content = json(content)' : 'ALTER TABLE documents ALTER COLUMN content SET COMPRESSION pglz', 'DELETE FROM schema_migrations WHERE version = 7']);
    expect(await storage()).toEqual([sqlite ? 'text' : 'p']);
    expect(await result(query)).toEqual(before);
    expect((await app.services.store.migrate()).applied).toEqual([7]);
    expect(await storage()).toEqual([sqlite ? 'blob' : 'l']);
    expect(await result(query)).toEqual(before);
  });

  it('gives what the unplanned in-memory evaluation gives, on generated data and queries', async () => {
    const store = app.services.store;
    const now = new Date().toISOString();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(plannerDataset, plannerDataset, fc.array(plannerQuery, { minLength: 6, maxLength: 6 }), async (earlier, docs, queries) => {
        const dataset = `generated-${n++}`;
        const asStored = (list: Record<string, unknown>[]) => list.map((doc) => ({ ...doc, _rev: 'r', _createdAt: now, _updatedAt: now }) as StoredDocument);
        const stored = asStored(docs);
        // Earlier versions first: the index rows of rewritten documents change by difference, and
        // those of deleted documents go.
        await store.transaction((tx) => tx.documents.putMany(project.id, dataset, asStored(earlier)));
        await store.transaction(async (tx) => {
          for (const doc of earlier) if (!docs.some((d) => d._id === doc._id)) await tx.documents.delete(project.id, dataset, doc._id as string);
          await tx.documents.putMany(project.id, dataset, stored);
        });
        for (const text of queries) {
          const outcome = async (run: () => Promise<unknown>, write: (value: unknown) => string = (value) => JSON.stringify(value ?? null)) => {
            try {
              return { ok: true, value: canonical(JSON.parse(write(await run()))) };
            } catch (error) {
              return { ok: false, value: String(error) };
            }
          };
          const expected = await outcome(() => evaluate(text, { dataset: stored, params: PLANNER_PARAMS, planner: false }));
          const planned = await outcome(() => evaluate(text, { source: new StoreDocumentSource(store, project.id, dataset), params: PLANNER_PARAMS }));
          // Small pages: streamed queries cross page boundaries and merge values across them. And
          // documents that are the result as they are come as their text, written as the query
          // route writes them: one that came so anywhere else would be written wrong.
          const paged = await outcome(
            () =>
              evaluate(text, {
                source: new StoreDocumentSource(store, project.id, dataset, { pageSizes: { documents: 2, values: 3 }, verbatim: true }),
                params: PLANNER_PARAMS,
              }),
            answerJson,
          );
          expect({ text, planned, paged }).toEqual({ text, planned: expected, paged: expected });
        }
      }),
      { numRuns: testEngine === 'postgres' ? 120 : 250 },
    );
  });
});
