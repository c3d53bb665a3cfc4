import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testEngine, withConnection, type TestDatabase } from '../helpers/engine.ts';
import { processDatabaseUrl } from '../helpers/cli.ts';
import type { ServerProcess } from '../helpers/server-process.ts';
import { expectServing, restartWithStaleIndex, startSmallHeapServer } from '../helpers/small-heap-server.ts';
import { expectErrorBody } from '../helpers/test-app.ts';
import { openEventStream } from '../helpers/listen.ts';

// A server with a small heap (128 MB), and bodies and documents of many small objects. Their text
// says little of what they take once parsed: V8 gives every object about 56 bytes, so 3 MB of
// `[{},{},…]` parse into 60 MB. Each test here ended the server before what it sends was counted
// as parsed (the body before it is parsed, documents as written and as read).
describe(`bodies and documents of many small objects on a small heap (${testEngine})`, () => {
  let db: TestDatabase;
  let server: ServerProcess;
  let token: string;
  let databaseUrl: string;
  const headers = { 'x-project': 'dense' };

  beforeAll(async () => {
    db = createTestDatabase();
    databaseUrl = await processDatabaseUrl(db);
    ({ server, token } = await startSmallHeapServer(db, databaseUrl, { name: 'Dense', slug: 'dense' }));
  }, 60_000);
  afterAll(async () => {
    await server?.kill();
    await db?.drop();
  });

  const alive = () => expectServing(server);

  const mutate = (mutations: unknown[]) => server.request<{ message: string }>('POST', '/api/v1/data/mutate/production', { token, headers, body: { mutations } });
  const empties = (count: number): object[] => new Array<object>(count).fill({});
  const count = async (filter: string) =>
    (await server.request<{ result: number }>('POST', '/api/v1/data/query/production', { token, headers, body: { query: `count(*[${filter}])` } })).body.result;

  it('refuses (413) a body that would take more than a request may to parse, and keeps serving', async () => {
    // 2.7 MB of text, 58 MB of objects; the check of them pushed a step per item, 65 MB more.
    const refused = await mutate([{ create: { _id: 'dense-huge', _type: 'dense', items: empties(900_000) } }]);
    expect(expectErrorBody(refused, 413).message).toMatch(/^The body would take about \d+ MiB of memory to parse and write, and a request may take \d+ MiB \(5\/16 of the heap: HEAP_LIMIT_MB\): send fewer objects and arrays/);
    await alive();
    expect(await count('_id == "dense-huge"')).toBe(0);
  });

  it('refuses (400) a document that takes more than its share of the heap once parsed', async () => {
    // 900 KB of text, 22 MB parsed: more than the 17 MiB a document may take on this heap.
    const refused = await mutate([{ create: { _id: 'dense-heavy', _type: 'dense', items: empties(300_000) } }]);
    expect(expectErrorBody(refused, 400).message).toMatch(/^mutations\[0\]\.create takes more than 17 MiB of memory once parsed/);
    await alive();
  });

  it('keeps serving while 30 clients send large mutations at once: each is written, or refused with 503 and Retry-After', async () => {
    // 30 bodies of 7 MB, text and 20,000 objects: their text alone is 210 MB.
    const body = (n: number) => ({ text: `${n} ${'lorem ipsum '.repeat(500_000)}`, items: Array.from({ length: 20_000 }, (_, i) => ({ _key: `k${n}-${i}`, n: i })) });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, n) => mutate([{ create: { _id: `burst-${n}`, _type: 'burst', ...body(n) } }])));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status !== 200 && status !== 503), JSON.stringify(statuses)).toEqual([]);
    const written = statuses.filter((status) => status === 200).length;
    expect(written).toBeGreaterThan(0);
    for (const refused of answers.filter((answer) => answer.status === 503)) {
      expect(expectErrorBody(refused, 503).message).toBe('The server is busy with large requests; try again shortly');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    await alive();
    expect(await count('_type == "burst"')).toBe(written);
  });

  it('refuses (400) a transaction that reads more documents than its share of the heap, counted as parsed', async () => {
    // Ten documents of 600 KB of text, 14 MB each once parsed: 6 MB of text, which a bound on
    // text let through; a patch copies each of them too.
    for (let i = 0; i < 10; i++) expect((await mutate([{ create: { _id: `dense-${i}`, _type: 'dense', items: empties(200_000) } }])).status).toBe(200);
    const patches = Array.from({ length: 10 }, (_, i) => ({ patch: { id: `dense-${i}`, set: { touched: true } } }));
    const refused = await mutate(patches);
    expect(expectErrorBody(refused, 400).message).toMatch(/^The transaction reads more than 17 MiB of stored documents, counted as they take in memory \(2 so far, the last dense-1\)/);
    await alive();
    // Documents written before their parse was stored beside them are counted as they are read;
    // written again one at a time, they have it stored again.
    const unweighed = "UPDATE documents SET heap_bytes = NULL WHERE id IN ('dense-0', 'dense-1')";
    await withConnection(db, { sqlite: (connection) => void connection.prepare(unweighed).run(), postgres: async (client) => void (await client.query(unweighed)) });
    expect(expectErrorBody(await mutate(patches), 400).message).toMatch(/\(2 so far, the last dense-1\)/);
    for (const id of ['dense-0', 'dense-1']) expect((await mutate([{ patch: { id, set: { weighed: true } } }])).status).toBe(200);
    await alive();
    expect(await count('_type == "dense" && touched')).toBe(0);
    expect((await mutate(patches.slice(0, 1))).status).toBe(200);
    expect(await count('_type == "dense" && touched')).toBe(1);
  });

  it.each(['*[_type == "dense"]', '*[_type == "dense"] | order(_id desc)[0...8]', '*[_type == "dense" && count(items) > 0]._id'])(
    'answers %s over documents of many objects whole, or refuses it, and keeps serving',
    async (query) => {
      const response = await server.request<{ result?: unknown[] }>('POST', '/api/v1/data/query/production', { token, headers, body: { query } });
      // A streamed answer that outgrows the main thread once begun is a 408 (README, query budgets); a worker's, a 422.
      expect([200, 408, 422], JSON.stringify(response.body).slice(0, 300)).toContain(response.status);
      if (response.status === 200) expect(response.body.result).toHaveLength(query.includes('[0...8]') ? 8 : 10);
      await alive();
    },
  );

  it('answers a query that follows references to documents of many objects, or refuses it, and keeps serving', async () => {
    // The ten documents of 14 MB parsed, read by id at once for the references: 140 MB.
    expect((await mutate(Array.from({ length: 10 }, (_, i) => ({ create: { _id: `pointer-${i}`, _type: 'pointer', target: { _ref: `dense-${i}` } } })))).status).toBe(200);
    for (const query of ['*[_type == "pointer"]{"n": count(target->items)}', '*[_type == "pointer"]{target->}']) {
      const response = await server.request<{ result?: { n?: number }[] }>('POST', '/api/v1/data/query/production', { token, headers, body: { query } });
      expect([200, 408, 422], JSON.stringify(response.body).slice(0, 300)).toContain(response.status);
      if (response.status === 200) expect(response.body.result).toHaveLength(10);
      await alive();
    }
  });

  it('imports documents of many objects a few at a time, and reports those that take too much as errors', async () => {
    // A batch held 8 MB of lines: 13 of these, 190 MB parsed.
    const lines = Array.from({ length: 15 }, (_, i) => JSON.stringify({ _id: `imported-${i}`, _type: 'imported', items: empties(i % 3 === 2 ? 300_000 : 200_000) }));
    const imported = await server.request<{ created: number; errors: { line: number; error: string }[] }>('POST', '/api/v1/data/import/production', {
      token,
      headers: { ...headers, 'content-type': 'application/x-ndjson' },
      rawBody: lines.join('\n'),
    });
    expect(imported.status, JSON.stringify(imported.body).slice(0, 300)).toBe(200);
    expect(imported.body.created).toBe(10);
    expect(imported.body.errors.map((error) => error.line)).toEqual([3, 6, 9, 12, 15]);
    expect(imported.body.errors[0]!.error).toMatch(/^the document takes more than 17 MiB of memory once parsed/);
    await alive();
    expect(await count('_type == "imported"')).toBe(10);
  });

  it('streams the history of a document of many objects edited many times, effects included', async () => {
    // Versions of 600 KB of text and 14 MB parsed: a step of the history held those of 4 MB of text.
    for (let i = 0; i < 12; i++) expect((await mutate([{ patch: { id: 'dense-2', set: { edit: i } } }])).status).toBe(200);
    const response = await fetch(`${server.url}/api/v1/data/history/production/transactions/dense-2?effectFormat=mendoza&excludeContent=true`, {
      headers: { authorization: `Bearer ${token}`, ...headers },
    });
    expect(response.status).toBe(200);
    const lines = (await response.text()).split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => 'error' in line)).toEqual([]);
    expect(lines).toHaveLength(13);
    await alive();
  });

  it('keeps serving a listener while documents of many objects change', async () => {
    // The listener's feed keeps the last state of changed documents for their next change: by
    // their text, 16 MB of them were hundreds of MB parsed.
    const stream = await openEventStream(`${server.url}/api/v1/data/listen/production?query=${encodeURIComponent('*[_type == "dense"]')}`, { authorization: `Bearer ${token}`, ...headers });
    try {
      expect(stream.status).toBe(200);
      await stream.next('welcome');
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 10; i++) expect((await mutate([{ patch: { id: `dense-${i}`, set: { round } } }])).status).toBe(200);
      }
      for (let n = 0; n < 20; n++) expect((await stream.next('mutation', 30_000)).json.documentId).toMatch(/^dense-\d$/);
    } finally {
      stream.close();
    }
    await alive();
  });

  it('starts again and rebuilds the document index of them (as after an upgrade that changes it)', async () => {
    ({ server, token } = await restartWithStaleIndex(server, db, databaseUrl));
    expect(await count('_type == "imported"')).toBe(10);
  });
});
