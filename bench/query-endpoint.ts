// The query endpoint under load: a GROQ lookup by id through HTTP (authentication, project,
// planning, the index, serialization), beside a bare Fastify route doing one SQLite lookup of the
// same document. The bar: at least half the bare route's requests per second.
import Fastify from 'fastify';
import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { startTestApp } from '../test/helpers/test-app.ts';
import { createTestDatabase } from '../test/helpers/engine.ts';
import type { StoredDocument } from '../src/store/index.ts';
import { generateDataset, postId } from './lib/dataset.ts';
import { loadTest, type LoadResult } from './lib/http-load.ts';
import { printTable, ratio } from './lib/report.ts';
import { checkTarget } from './lib/targets.ts';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
const DOCUMENTS = 10_000;
const TARGET = postId(1234);

async function bareBaseline(): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'cms-bench-'));
  const db = new BetterSqlite3(join(dir, 'bare.db'));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE docs (id TEXT PRIMARY KEY, content TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO docs (id, content) VALUES (?, ?)');
  db.transaction(() => {
    for (const document of generateDataset(DOCUMENTS)) insert.run(document._id, JSON.stringify(document));
  })();
  const lookup = db.prepare('SELECT content FROM docs WHERE id = ?').pluck();
  const app = Fastify();
  app.get<{ Params: { id: string } }>('/docs/:id', async (request, reply) => reply.type('application/json').send(lookup.get(request.params.id)));
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    return await loadTest({ url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/docs/${TARGET}` }, DURATION_S);
  } finally {
    await app.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function ourServer(): Promise<LoadResult> {
  const app = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'silent' }, { db: createTestDatabase(undefined) });
  try {
    const token = await app.login();
    const project = await app.request<{ id: string }>('POST', '/api/v1/projects', { token, body: { name: 'Bench', slug: 'bench' } });
    const now = new Date().toISOString();
    const documents = [...generateDataset(DOCUMENTS)].map((document) => ({ ...document, _rev: 'bench', _createdAt: now, _updatedAt: now }) as StoredDocument);
    await app.services.store.transaction((tx) => tx.documents.putMany(project.body.id, 'production', documents));
    const query = new URLSearchParams({ query: '*[_id == $id][0]', $id: JSON.stringify(TARGET) });
    const url = `${app.url}/api/v1/data/query/production?${query}`;
    const headers = { authorization: `Bearer ${token}`, 'x-project': 'bench' };
    const check = await fetch(url, { headers });
    if (((await check.json()) as { result?: { _id?: string } }).result?._id !== TARGET) throw new Error('the query endpoint did not find the document');
    return await loadTest({ url, headers }, DURATION_S);
  } finally {
    await app.close();
  }
}

export async function runQueryEndpointBenchmark(): Promise<void> {
  console.log(`\nQuery endpoint: 16 connections for ${DURATION_S} s each, ${DOCUMENTS.toLocaleString('en')} documents, SQLite`);
  const baseline = await bareBaseline();
  const ours = await ourServer();
  const row = (name: string, r: LoadResult) => [name, Math.round(r.rps), r.p50, r.p99, r.errors, ratio(r.rps, baseline.rps)];
  printTable(
    'GROQ lookup by id through HTTP, requests per second',
    ['server', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs bare lookup'],
    [row('bare Fastify + 1 SQLite lookup (baseline)', baseline), row('content service: GET /data/query, *[_id == $id][0]', ours)],
  );
  checkTarget('query endpoint against the bare lookup route', ours.rps / baseline.rps, { atLeast: 0.6 }, 'x');
}

if (import.meta.url === `file://${process.argv[1]}`) await runQueryEndpointBenchmark();
