import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startTestApp, type ApiResponse, type TestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';
import { scaledRuns } from './fuzz-scale.ts';

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

describe(`the strings a query builds (${testEngine})`, () => {
  // QUERY_MEMORY_LIMIT_MB=32: no string longer than 8,388,608 characters. One write can hold 16 MB.
  const BODY = 100_000;
  const JOINED = 'array::join(string::split(body, ""), body)';
  let onMain: TestApp;
  let inWorker: TestApp;
  const clients = new Map<TestApp, ReturnType<typeof dataClient>>();

  beforeAll(async () => {
    onMain = await startTestApp({ QUERY_MEMORY_LIMIT_MB: '32' });
    // Room for one document on the main thread: the queries below read two, so they run in a worker.
    inWorker = await startTestApp({ QUERY_MEMORY_LIMIT_MB: '32', QUERY_MAIN_THREAD_DOCUMENTS: '1' });
    for (const app of [onMain, inWorker]) {
      const admin = await app.login();
      const project = await createProject(app, admin);
      const writer = dataClient(app, admin, project.slug);
      ok(await writer.mutate([{ create: { _id: 'big', _type: 'big', body: 'x'.repeat(BODY) } }, { create: { _id: 'other', _type: 'big', body: 'y' } }]));
      clients.set(app, writer);
    }
  });
  afterAll(async () => {
    await onMain.close();
    await inWorker.close();
  });

  const where = () => [
    ['on the main thread', clients.get(onMain)!],
    ['in a worker', clients.get(inWorker)!],
  ] as const;

  it('refuses with 422 a join that would write its separator between every two of many items', async () => {
    // 100,000 items joined by 100,000 characters: ten billion, beyond what V8 can hold (this was a 500).
    for (const [place, data] of where()) {
      const body = expectErrorBody(await data.query(`*[_type == "big"] | order(_id) {"joined": ${JOINED}}`), 422);
      expect(body.message, place).toMatch(/builds a string of 10000000000 characters, longer than the 8388608/);
    }
  });

  it('refuses with 422 such a join written in the query itself, which is not worked out while the query is prepared', async () => {
    const query = `array::join(string::split("${'a'.repeat(3000)}", ""), "${'b'.repeat(3000)}")`;
    expect(expectErrorBody(await clients.get(onMain)!.query(query), 422).message).toMatch(/builds a string of 9000000 characters/);
  });

  it('refuses with 422 a sum of strings longer than a query may build, and answers the same sums within it', async () => {
    const sum = (terms: number) => `*[_type == "big"] | order(_id) {"n": length(${Array.from({ length: terms }, () => 'body').join(' + ')})}`;
    for (const [place, data] of where()) {
      expect(expectErrorBody(await data.query(sum(84)), 422).message, place).toMatch(/builds a string of 8400000 characters/);
      expect(ok(await data.query(sum(83))).result, place).toEqual([{ n: 8_300_000 }, { n: 83 }]);
      expect(ok(await data.query(`*[_type == "big"] | order(_id) {"joined": array::join(string::split(body, "")[0...3], "-")}`)).result, place).toEqual([
        { joined: 'x-x-x' },
        { joined: 'y' },
      ]);
    }
  });
  // Text made of text: functions and operators that build strings, nested, over the 100,000
  // characters of `body`. Whatever they build, the answer is a result or a 4xx, on either thread.
  const text: fc.Arbitrary<string> = fc.letrec<{ text: string; list: string }>((tie) => ({
    text: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom('body', 'body', '_id', '"-"', 'string(count(string::split(body, "")))'),
      fc.tuple(tie('list'), tie('text')).map(([list, separator]) => `array::join(${list}, ${separator})`),
      fc.tuple(tie('text'), tie('text')).map(([a, b]) => `(${a} + ${b})`),
      fc.tuple(fc.constantFrom('upper', 'lower', 'pt::text'), tie('text')).map(([fn, a]) => `${fn}(${a})`),
      fc.tuple(tie('list'), fc.nat(5)).map(([list, i]) => `${list}[${i}]`),
    ),
    list: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.tuple(tie('text'), fc.constantFrom('""', '"x"', '"-"')).map(([a, separator]) => `string::split(${a}, ${separator})`),
      fc.tuple(tie('text'), tie('text')).map(([a, separator]) => `string::split(${a}, ${separator})`),
      fc.array(tie('text'), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`),
      fc.tuple(tie('list'), tie('list')).map(([a, b]) => `(${a} + ${b})`),
      tie('list').map((list) => `array::unique(${list})`),
    ),
  })).text;

  it('answers every generated query that builds text with a result or a 4xx, on either thread', async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.boolean(), async (expression, worker) => {
        const data = clients.get(worker ? inWorker : onMain)!;
        const response = await data.query(`*[_type == "big"] | order(_id) {"n": length(${expression})}`);
        expect(response.status, `${expression} -> ${JSON.stringify(response.body).slice(0, 300)}`).toBeLessThan(500);
        if (response.status >= 400) expectErrorBody(response, response.status);
      }),
      { numRuns: scaledRuns(80) },
    );
    for (const app of [onMain, inWorker]) expect(ok(await clients.get(app)!.query('count(*)')).result).toBe(2);
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
