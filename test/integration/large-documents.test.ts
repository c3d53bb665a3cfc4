import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testEngine, withConnection, type TestDatabase } from '../helpers/engine.ts';
import { processDatabaseUrl } from '../helpers/cli.ts';
import type { ServerProcess } from '../helpers/server-process.ts';
import { expectServing, restartWithStaleIndex, startSmallHeapServer } from '../helpers/small-heap-server.ts';
import { openEventStream, type EventStream } from '../helpers/listen.ts';

// A server with a small heap (128 MB), and a dataset of large documents: 480 of 200 KB, 96 MB of
// text, three quarters of the heap. Writes and reads of many documents (an import, an export, a
// streamed query, the whole dataset, a long window, the index rebuilt at start) must hold a
// bounded part of them at once: in batches and pages of hundreds or thousands of documents (or
// all of a window at once) they took the process past its heap limit, and V8 ended it. Each answer
// is whole, or a 422 from a query worker (which has a heap of its own), and the server keeps
// serving.
const DOCUMENTS = 480;
const BODY_BYTES = 200_000;

describe(`a dataset of large documents on a small heap (${testEngine})`, () => {
  let db: TestDatabase;
  let server: ServerProcess;
  let token: string;
  let databaseUrl: string;
  const headers = { 'x-project': 'large' };

  beforeAll(async () => {
    db = createTestDatabase();
    databaseUrl = await processDatabaseUrl(db);
    ({ server, token } = await startSmallHeapServer(db, databaseUrl, { name: 'Large', slug: 'large' }));
    // Repetitive text, which PostgreSQL stores compressed tens of times: pages cut by that stored
    // size (instead of the text's length) held the whole dataset at once.
    const body = (i: number) => `${i} ${'lorem ipsum '.repeat(BODY_BYTES / 12)}`;
    const lines = Array.from({ length: DOCUMENTS }, (_, i) => JSON.stringify({ _id: `large-${String(i).padStart(4, '0')}`, _type: 'large', n: i, body: body(i) }));
    // In one import: a batch of 500 documents held them all at once.
    const imported = await server.request('POST', '/api/v1/data/import/production', {
      token,
      headers: { ...headers, 'content-type': 'application/x-ndjson' },
      rawBody: lines.join('\n'),
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body).toMatchObject({ created: DOCUMENTS, errors: [] });
  }, 120_000);
  afterAll(async () => {
    await server?.kill();
    await db?.drop();
  });

  const alive = () => expectServing(server);

  it('exports every document', async () => {
    const response = await fetch(`${server.url}/api/v1/data/export/production`, { headers: { authorization: `Bearer ${token}`, ...headers } });
    expect(response.status).toBe(200);
    const lines = (await response.text()).split('\n').filter(Boolean);
    expect(lines).toHaveLength(DOCUMENTS);
    expect((JSON.parse(lines[DOCUMENTS - 1]!) as { n: number }).n).toBe(DOCUMENTS - 1);
    await alive();
  });

  it('starts again and rebuilds the document index of them (as after an upgrade that changes it)', async () => {
    ({ server, token } = await restartWithStaleIndex(server, db, databaseUrl));
    const found = await server.request<{ result: string[] }>('POST', '/api/v1/data/query/production', { token, headers, body: { query: '*[_type == "large" && n >= 470] | order(n)._id' } });
    expect(found.body.result).toEqual(Array.from({ length: 10 }, (_, i) => `large-${String(470 + i).padStart(4, '0')}`));
  });

  it.each(['*[_type == "large"]', '*', '*[_type == "large"][0...300]', '*[_type == "large"] | order(n desc)[0...300]'])('answers %s whole, or with 422', async (query) => {
    const response = await server.request<{ result?: { n: number }[] }>('POST', '/api/v1/data/query/production', { token, headers, body: { query } });
    expect([200, 422], JSON.stringify(response.body).slice(0, 300)).toContain(response.status);
    if (response.status === 200) expect(response.body.result!.length).toBe(query.includes('300') ? 300 : DOCUMENTS);
    await alive();
  });

  it('applies a transaction of 2,000 patches to one of them, and the document is as the last left it', async () => {
    const mutations = Array.from({ length: 2000 }, (_, i) => ({ patch: { id: 'large-0001', set: { edited: i }, inc: { n: 1 } } }));
    // A copy of the document per patch, each kept for the answer: 400 MB on a 128 MB heap.
    const response = await server.request<{ results: unknown[] }>('POST', '/api/v1/data/mutate/production', { token, headers, body: { mutations } });
    expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(200);
    expect(response.body.results).toHaveLength(2000);
    const found = await server.request<{ result: { n: number; edited: number } }>('POST', '/api/v1/data/query/production', {
      token,
      headers,
      body: { query: '*[_id == "large-0001"][0]{n, edited}' },
    });
    expect(found.body.result).toEqual({ n: 2001, edited: 1999 });
    await alive();
  });

  /** Sends `mutations` in one transaction, which must succeed. */
  async function mutate(mutations: unknown[]): Promise<void> {
    const written = await server.request('POST', '/api/v1/data/mutate/production', { token, headers, body: { mutations } });
    expect(written.status).toBe(200);
  }

  /** A 1 MB document, created and then edited in 80 more transactions. */
  async function editedManyTimes(id: string): Promise<void> {
    await mutate([{ create: { _id: id, _type: 'large', body: `${'lorem ipsum '.repeat(BODY_BYTES / 12)}`.repeat(5) } }]);
    for (let i = 0; i < 80; i++) await mutate([{ patch: { id, set: { edit: i } } }]);
  }

  /** The NDJSON lines of a history request, parsed; the server still serving after it. */
  async function historyLines(path: string): Promise<Record<string, unknown>[]> {
    const response = await fetch(`${server.url}/api/v1/data/history/production/transactions/${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
    expect(response.status).toBe(200);
    const lines = (await response.text()).split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => 'error' in line)).toEqual([]);
    await alive();
    return lines;
  }

  it('streams the history of a large document edited many times, effects included', async () => {
    // A round of lines held the versions of 100 transactions at once.
    await editedManyTimes('history-big');
    const lines = await historyLines('history-big?effectFormat=mendoza&excludeContent=true');
    expect(lines).toHaveLength(81);
    expect(Object.keys(lines[80]!.effects as object)).toEqual(['history-big']);
  });

  it('streams the history of a document sent whole in each of 100 transactions, mutations included', async () => {
    // Each transaction's mutations are the 1 MB document: a round of 100 rows read them all at once.
    for (let i = 0; i < 100; i++) {
      await mutate([{ createOrReplace: { _id: 'history-replaced', _type: 'large', n: i, body: `${i} ${'lorem ipsum '.repeat(BODY_BYTES / 12)}`.repeat(5) } }]);
    }
    const lines = await historyLines('history-replaced');
    expect(lines.map((line) => (line.mutations as { createOrReplace: { n: number } }[])[0]!.createOrReplace.n)).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it('streams the history of a large document after it was deleted, effects included', async () => {
    // Steps were sized by the documents' current length, and a deleted document has none.
    await editedManyTimes('history-deleted');
    await mutate([{ delete: { id: 'history-deleted' } }]);
    const lines = await historyLines('history-deleted?effectFormat=mendoza&excludeContent=true&excludeMutations=true');
    expect(lines).toHaveLength(82);
    expect(lines.every((line) => Object.keys(line.effects as object).join() === 'history-deleted')).toBe(true);
  });

  it('answers a request for 100 documents of 2 MB by id, with the ids it does not have omitted', async () => {
    const big = { _id: 'by-id-big', _type: 'large', body: 'lorem ipsum '.repeat(175_000) };
    expect((await server.request('POST', '/api/v1/data/mutate/production', { token, headers, body: { mutations: [{ create: big }] } })).status).toBe(200);
    // An id may be asked for more than once, and comes as often: 200 MB of answer, on a 128 MB heap.
    const ids = [...Array.from({ length: 99 }, () => 'by-id-big'), 'by-id-none'];
    const response = await fetch(`${server.url}/api/v1/data/doc/production/${ids.join(',')}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
    expect(response.status).toBe(200);
    // Counted as the text arrives (a marker may span two chunks): the test need not hold 200 MB either.
    // PostgreSQL writes its JSON text with a space after each colon.
    const marker = /"_id": ?"by-id-big"/g;
    const longest = '"_id": "by-id-big"'.length;
    let documents = 0;
    let tail = '';
    let last = '';
    const decoder = new TextDecoder();
    for await (const chunk of response.body!) {
      const text = tail + decoder.decode(chunk, { stream: true });
      documents += text.match(marker)?.length ?? 0;
      tail = text.slice(-(longest - 1));
      last = text.slice(-200);
    }
    expect(documents).toBe(99);
    expect(JSON.parse(last.slice(last.indexOf('],"omitted":') + 12, -1))).toEqual([{ id: 'by-id-none', reason: 'existence' }]);
    await alive();
  });

  it('answers the history of 99 of them at their last revision, in the order asked', async () => {
    const ids = Array.from({ length: 99 }, (_, i) => `large-${String(98 - i).padStart(4, '0')}`);
    const response = await server.request<{ documents: { _id: string }[] }>('GET', `/api/v1/data/history/production/documents/${[...ids, 'none'].join(',')}?lastRevision=true`, {
      token,
      headers,
    });
    expect(response.status).toBe(200);
    expect(response.body.documents.map((document) => document._id)).toEqual(ids);
    await alive();
  });

  it('refuses (400) a transaction that reads more stored documents than its share of the heap, and keeps serving', async () => {
    // 300 of them, 60 MB of text, held about three times over: past the 128 MB heap (200 already
    // ended the server). A transaction may read a sixteenth of the heap, and at least 17 MiB.
    const patch = (count: number) => ({ mutations: Array.from({ length: count }, (_, i) => ({ patch: { id: `large-${String(100 + i).padStart(4, '0')}`, set: { touched: count } } })) });
    const refused = await server.request<{ message: string }>('POST', '/api/v1/data/mutate/production', { token, headers, body: patch(300) });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^The transaction reads more than 17 MiB of stored documents, counted as they take in memory \(\d+ so far, the last large-\d+\): send its changes in several smaller transactions$/);
    await alive();
    // Nothing of it was written; a transaction within the bound is.
    const untouched = await server.request<{ result: number }>('POST', '/api/v1/data/query/production', { token, headers, body: { query: 'count(*[_type == "large" && defined(touched)])' } });
    expect(untouched.body.result).toBe(0);
    await mutate(patch(40).mutations);
    await alive();
  });

  /** Runs `use` with a listener of `query` on the dataset, welcomed; then the server must still serve. */
  async function listening(query: string, use: (stream: EventStream) => Promise<void>): Promise<void> {
    const stream = await openEventStream(`${server.url}/api/v1/data/listen/production?query=${encodeURIComponent(query)}`, { authorization: `Bearer ${token}`, ...headers });
    try {
      expect(stream.status).toBe(200);
      await stream.next('welcome');
      await use(stream);
    } finally {
      stream.close();
    }
    await alive();
  }

  // PostgreSQL reads the log up to its oldest running transaction: one left open holds back every
  // change after it, which a listener then gets at once. The log's rows were read with their
  // mutations, 500 at a time: 60 transactions each sending a 1 MB document whole were 60 MB of
  // text and its parse, on a 128 MB heap. SQLite's commits are read as they come.
  it.runIf(testEngine === 'postgres')('sends a listener the changes a running transaction held back, each a large document sent whole', async () => {
    await listening('*[_id == "feed-big"]', async (stream) => {
      await withConnection(db, {
        sqlite: () => undefined,
        postgres: async (client) => {
          await client.query('BEGIN');
          await client.query('SELECT pg_current_xact_id()');
          for (let i = 0; i < 60; i++) {
            await mutate([{ createOrReplace: { _id: 'feed-big', _type: 'large', n: i, body: `${i} ${'lorem ipsum '.repeat(BODY_BYTES / 12)}`.repeat(5) } }]);
          }
          await client.query('COMMIT');
        },
      });
      for (let i = 0; i < 60; i++) {
        const event = await stream.next('mutation', 30_000);
        expect((event.json.mutations as { createOrReplace: { n: number } }[])[0]!.createOrReplace.n).toBe(i);
      }
    });
  });

  it('keeps serving listeners while 100 large documents are written, each in its own transaction', async () => {
    // The document after each change is kept for the next change of it: 1,000 of them were kept,
    // whatever their size, and 100 of 1 MB ended the server (a listener on the dataset is enough).
    await listening('*[_type == "kept"]', async (stream) => {
      for (let i = 0; i < 100; i++) {
        await mutate([{ create: { _id: `kept-${i}`, _type: i === 99 ? 'kept' : 'large', body: `${i} ${'lorem ipsum '.repeat(BODY_BYTES / 12)}`.repeat(5) } }]);
      }
      // Events leave in commit order: the last one's means every change was judged.
      expect((await stream.next('mutation', 30_000)).json.documentId).toBe('kept-99');
    });
  });

  it('keeps serving while clients send many different long queries', async () => {
    // Each query prepared (parsed, planned, compiled) was kept for the next request sending its
    // text: 1,000 of them whatever their size, and one of 8 KB can be a tree of 4,000 nodes, 1.5
    // MB. 150 of them ended the server.
    for (let i = 0; i < 150; i++) {
      const query = `*[_id == "large-0001"][0]{"n": [${new Array<string>(3900).fill('n').join(',')}], "i": ${i}}`;
      const answered = await server.request<{ result: { n: number[]; i: number } }>('POST', '/api/v1/data/query/production', { token, headers, body: { query } });
      expect(answered.status).toBe(200);
      expect(answered.body.result.i).toBe(i);
      expect(answered.body.result.n).toHaveLength(3900);
    }
    await alive();
  });
});
