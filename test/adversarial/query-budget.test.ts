import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startTestApp, type ApiResponse, type TestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';

// Every query has a time and a memory budget, and a heavy one moves off the main thread, so it
// neither takes the process's memory nor delays other requests (docs/decisions.md).
const DOCUMENTS = 41;
/** The attack as reported: 41^5 values, 13 s and 2.4 GB before. */
const EXPLODING = 'count(*[]{"x":*[]{"y":*[]{"z":*[]{"w":*[]}}}}[].x[].y[].z[].w[])';
/** Little memory, a great deal of arithmetic: 41^5 evaluations of the innermost filter (about half a minute). */
const GRINDING = 'count(*[count(*[count(*[count(*[count(*[n + ^.n + ^.^.n + ^.^.^.n + ^.^.^.^.n == -1]) == 0]) == 0]) == 0]) == 0])';

/** An app with the documents, and a read token's client for them. */
async function appWithDocuments(env: Record<string, string>): Promise<{ app: TestApp; data: ReturnType<typeof dataClient> }> {
  const app = await startTestApp(env);
  const admin = await app.login();
  const project = await createProject(app, admin);
  const writer = dataClient(app, admin, project.slug);
  ok(await writer.mutate(Array.from({ length: DOCUMENTS }, (_, i) => ({ create: { _id: `doc-${i}`, _type: 'thing', n: i } }))));
  return { app, data: dataClient(app, (await createApiToken(app, admin, project.slug, { permissions: ['read'] })).token, project.slug) };
}

describe(`the memory budget of a query (${testEngine})`, () => {
  let app: TestApp;
  let data: ReturnType<typeof dataClient>;

  beforeAll(async () => {
    ({ app, data } = await appWithDocuments({ QUERY_MEMORY_LIMIT_MB: '32', QUERY_SLICE_MS: '50' }));
  });
  afterAll(async () => app.close());

  it('answers a query that needs too much memory with 422, and the server keeps its memory', async () => {
    const before = process.memoryUsage().rss;
    const body = expectErrorBody(await data.query(EXPLODING), 422);
    expect(body.message).toMatch(/QUERY_MEMORY_LIMIT_MB/);
    // The values were built in a worker thread with its own heap limit, not in the server's heap.
    expect(process.memoryUsage().rss - before).toBeLessThan(512 * 1024 * 1024);
    expect(ok(await data.query('count(*)')).result).toBe(DOCUMENTS);
  });
});

describe(`the time budget of a query (${testEngine})`, () => {
  let app: TestApp;
  let data: ReturnType<typeof dataClient>;

  beforeAll(async () => {
    ({ app, data } = await appWithDocuments({ QUERY_TIMEOUT_MS: '3000', QUERY_SLICE_MS: '50' }));
  });
  afterAll(async () => app.close());

  it('answers a query that computes too long with 408', async () => {
    expect(expectErrorBody(await data.query(GRINDING), 408).message).toMatch(/QUERY_TIMEOUT_MS/);
  });

  it('answers small queries at once while a heavy one runs', async () => {
    const order: string[] = [];
    const heavy = data.query(GRINDING).then((response) => {
      order.push('heavy');
      return response;
    });
    // Once the heavy query has left the main thread, small ones answer while it runs.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let i = 0; i < 5; i++) {
      const small = await data.query<{ _id: string }>(`*[_id == "doc-${i}"][0]`);
      expect(ok(small).result._id).toBe(`doc-${i}`);
      order.push('small');
    }
    expectErrorBody((await heavy) as ApiResponse, 408);
    expect(order).toEqual(['small', 'small', 'small', 'small', 'small', 'heavy']);
  });

  it('answers a query that outgrows its slice in full, from a worker', async () => {
    // 41^4 evaluations: far more than a slice of 50 ms, well within the budget.
    const query = 'count(*[count(*[count(*[count(*[n + ^.n + ^.^.n + ^.^.^.n == -1]) == 0]) == 0]) == 0])';
    expect(ok(await data.query(query)).result).toBe(DOCUMENTS);
  });
});

describe(`the queue of heavy queries (${testEngine})`, () => {
  let app: TestApp;
  let data: ReturnType<typeof dataClient>;

  beforeAll(async () => {
    ({ app, data } = await appWithDocuments({ QUERY_WORKERS: '1', QUERY_TIMEOUT_MS: '2000', QUERY_SLICE_MS: '20' }));
  });
  afterAll(async () => app.close());

  it('answers 429 with Retry-After when more heavy queries wait than the threads may queue (8 per thread)', async () => {
    const responses = await Promise.all(Array.from({ length: 12 }, () => data.query(GRINDING)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status !== 408 && status !== 429)).toEqual([]);
    const refused = responses.filter((response) => response.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(expectErrorBody(refused[0]!, 429).message).toMatch(/Too many expensive queries/);
    expect(refused[0]!.headers.get('retry-after')).toBe('1');
    // The thread is free again afterwards.
    expect(ok(await data.query('count(*)')).result).toBe(DOCUMENTS);
  });
});

describe(`queries answered by a worker (${testEngine})`, () => {
  let onMain: TestApp;
  let inWorker: TestApp;
  const queries = [
    '*[_type == "thing"] | order(n desc) [0...5] {_id, n}',
    '*[n > 30]{_id, "pairs": *[_type == "thing" && n < ^.n && n > ^.n - 3]._id}',
    'count(*[_type == "thing"])',
    'math::sum(*[_type == "thing"].n)',
    '*[_type == "thing"]{_id, "twice": n * 2}',
    '{"one": *[_id == "doc-1"][0].n, "all": count(*)}',
    '{"things": *[_type == "thing"]{_id}, "first": *[_type == "thing"] | order(_id) [0]._id}',
  ];

  beforeAll(async () => {
    onMain = await startTestApp();
    // A slice of one millisecond, and room for ten documents, send every query with any work to a worker.
    inWorker = await startTestApp({ QUERY_SLICE_MS: '1', QUERY_MAIN_THREAD_DOCUMENTS: '10' });
    for (const app of [onMain, inWorker]) {
      const admin = await app.login();
      const project = await createProject(app, admin);
      const writer = dataClient(app, admin, project.slug);
      ok(await writer.mutate(Array.from({ length: DOCUMENTS }, (_, i) => ({ create: { _id: `doc-${i}`, _type: 'thing', n: i } }))));
      Object.assign(app, { data: writer });
    }
  });
  afterAll(async () => {
    await onMain.close();
    await inWorker.close();
  });

  const clientOf = (app: TestApp) => (app as TestApp & { data: ReturnType<typeof dataClient> }).data;

  it.each(queries)('gives the main thread\'s result: %s', async (query) => {
    const expected = ok(await clientOf(onMain).query(query)).result;
    expect(ok(await clientOf(inWorker).query(query)).result).toEqual(expected);
  });
});

describe(`a streamed answer whose later pages would hold more (${testEngine})`, () => {
  // Pages after the first were up to ten times its size: with a subquery per author, the second
  // page held more documents than the main thread may, after the answer had begun, and the
  // response broke off. The main thread holds 1,500 here; 3,000 authors with a post each.
  const AUTHORS = 3000;
  let app: TestApp;
  let data: ReturnType<typeof dataClient>;

  beforeAll(async () => {
    app = await startTestApp({ QUERY_MAIN_THREAD_DOCUMENTS: '1500', QUERY_SLICE_MS: '60000' });
    const admin = await app.login();
    const project = await createProject(app, admin);
    const lines = Array.from({ length: AUTHORS }, (_, i) => [
      JSON.stringify({ _id: `author-${String(i).padStart(5, '0')}`, _type: 'author', name: `Author ${i}` }),
      JSON.stringify({ _id: `post-${String(i).padStart(5, '0')}`, _type: 'post', author: { _type: 'reference', _ref: `author-${String(i).padStart(5, '0')}` } }),
    ]).flat();
    ok(await app.request('POST', '/api/v1/data/import/production', { token: admin, headers: { 'x-project': project.slug, 'content-type': 'application/x-ndjson' }, rawBody: lines.join('\n') }));
    data = dataClient(app, admin, project.slug);
  });
  afterAll(async () => {
    await app.close();
  });

  it('is answered whole on the main thread, each author with its post', async () => {
    const result = ok(await data.query('*[_type == "author"]{_id, "posts": *[_type == "post" && references(^._id)][0...3]._id}')).result as { _id: string; posts: string[] }[];
    expect(result).toHaveLength(AUTHORS);
    expect(result.filter((author) => author.posts.length !== 1 || author.posts[0] !== author._id.replace('author', 'post'))).toEqual([]);
  });
});
