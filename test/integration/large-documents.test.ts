import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/engine.ts';
import { processDatabaseUrl } from '../helpers/cli.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';

// A server with a small heap (128 MB), and a dataset of large documents: 480 of 200 KB, 96 MB of text,
// three quarters of the heap. Reads of many documents (an export, a streamed query, the whole
// dataset, a long window) must hold a bounded part of them at once: in pages of a thousand
// documents (or all of a window at once) they took the process past its heap limit, and V8 ended
// it. Each answer is whole, or a 422 from a query worker (which has a heap of its own), and the
// server keeps serving.
const DOCUMENTS = 480;
const BODY_BYTES = 200_000;

describe(`a dataset of large documents on a small heap (${testEngine})`, () => {
  let db: TestDatabase;
  let server: ServerProcess;
  let token: string;
  const headers = { 'x-project': 'large' };

  beforeAll(async () => {
    db = createTestDatabase();
    server = await startServerProcess({ DATA_DIR: db.dataDir, DATABASE_URL: await processDatabaseUrl(db), HEAP_LIMIT_MB: '128' });
    token = await server.login();
    expect((await server.request('POST', '/api/v1/projects', { token, body: { name: 'Large', slug: 'large' } })).status).toBe(201);
    // Text that compresses little (random), as PostgreSQL stores it compressed when it can.
    const lines = Array.from({ length: DOCUMENTS }, (_, i) =>
      JSON.stringify({ _id: `large-${String(i).padStart(4, '0')}`, _type: 'large', n: i, body: randomBytes((BODY_BYTES * 3) / 4).toString('base64') }),
    );
    for (let from = 0; from < DOCUMENTS; from += 60) {
      const imported = await server.request('POST', '/api/v1/data/import/production', {
        token,
        headers: { ...headers, 'content-type': 'application/x-ndjson' },
        rawBody: lines.slice(from, from + 60).join('\n'),
      });
      expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    await server?.kill();
    await db?.drop();
  });

  async function alive(): Promise<void> {
    expect((await server.request('GET', '/api/v1/health')).status).toBe(200);
  }

  it('exports every document', async () => {
    const response = await fetch(`${server.url}/api/v1/data/export/production`, { headers: { authorization: `Bearer ${token}`, ...headers } });
    expect(response.status).toBe(200);
    const lines = (await response.text()).split('\n').filter(Boolean);
    expect(lines).toHaveLength(DOCUMENTS);
    expect((JSON.parse(lines[DOCUMENTS - 1]!) as { n: number }).n).toBe(DOCUMENTS - 1);
    await alive();
  });

  it.each(['*[_type == "large"]', '*', '*[_type == "large"][0...300]', '*[_type == "large"] | order(n desc)[0...300]'])('answers %s whole, or with 422', async (query) => {
    const response = await server.request<{ result?: { n: number }[] }>('POST', '/api/v1/data/query/production', { token, headers, body: { query } });
    expect([200, 422], JSON.stringify(response.body).slice(0, 300)).toContain(response.status);
    if (response.status === 200) expect(response.body.result!.length).toBe(query.includes('300') ? 300 : DOCUMENTS);
    await alive();
  });
});
