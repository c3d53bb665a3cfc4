import Fastify from 'fastify';
import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { startTestApp } from '../test/helpers/test-app.ts';
import { createTestDatabase } from '../test/helpers/engine.ts';
import { benchPostgresUrl, printTable, ratio } from './lib/report.ts';
import { checkTarget } from './lib/targets.ts';
import { defaultServerLog } from './lib/server-log.ts';
import { LOG_START } from '../src/store/commit-order.ts';
import { LOAD_CONNECTIONS as CONNECTIONS, loadTest, type LoadResult } from './lib/http-load.ts';

/**
 * Single-document mutation transactions through HTTP: each request creates one document with its
 * revision and its outbox event. Baseline: a bare Fastify route doing one SQLite INSERT. The
 * documents get the ids the service makes (time-ordered); on SQLite also with random ids the
 * client chooses, as Studio does, whose index entries land all over each index.
 */
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
const POST = { _type: 'benchPost', title: 'A benchmark post', body: 'x'.repeat(400), n: 1 };
const BODY = JSON.stringify({ mutations: [{ create: POST }] });
const RANDOM_ID_BODY = JSON.stringify({ mutations: [{ create: { ...POST, _id: 'drafts.[<uuid>]' } }] });

type Ids = 'service' | 'random';

const load = (url: string, headers: Record<string, string>, ids: Ids): Promise<LoadResult> =>
  loadTest({ url, method: 'POST', headers, ...(ids === 'service' ? { body: BODY } : { body: RANDOM_ID_BODY, freshUuids: true }) }, DURATION_S);

async function ourServer(pgUrl: string | undefined, ids: Ids = 'service'): Promise<LoadResult> {
  const app = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000000' }, { db: createTestDatabase(pgUrl), log: defaultServerLog() });
  try {
    const token = await app.login();
    const project = await app.request<{ slug: string; id: string }>('POST', '/api/v1/projects', {
      token,
      body: { name: 'Bench', slug: 'bench' },
    });
    const result = await load(`${app.url}/api/v1/data/mutate/production`, { authorization: `Bearer ${token}`, 'x-project': 'bench' }, ids);
    // Every accepted transaction wrote its event (a few more may have committed as the clock ran out).
    const events = (await app.services.store.outbox.after(LOG_START, 10_000_000)).filter((event) => event.projectId === project.body.id).length;
    if (events < result.ok || events > result.ok + CONNECTIONS) throw new Error(`wrote ${events} events for ${result.ok} accepted transactions`);
    return result;
  } finally {
    await app.close();
  }
}

async function bareBaseline(): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'cms-bench-'));
  const db = new BetterSqlite3(join(dir, 'bare.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE docs (id INTEGER PRIMARY KEY, content TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO docs (content) VALUES (?)');
  const app = Fastify();
  app.post('/insert', async (request) => ({ id: Number(insert.run(JSON.stringify(request.body)).lastInsertRowid) }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    return await load(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/insert`, {}, 'service');
  } finally {
    await app.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runWriteBenchmark(): Promise<void> {
  console.log(`\nWrites: ${CONNECTIONS} connections for ${DURATION_S} s each (loopback, the client in a worker thread)`);
  const baseline = await bareBaseline();
  const sqlite = await ourServer(undefined);
  const sqliteRandomIds = await ourServer(undefined, 'random');
  const pgUrl = await benchPostgresUrl();
  const postgres = pgUrl ? await ourServer(pgUrl) : undefined;
  const row = (name: string, r: LoadResult) => [name, Math.round(r.rps), r.p50, r.p99, r.errors, ratio(r.rps, baseline.rps)];
  printTable(
    'Single-document mutation transactions (document + revision + event) per second',
    ['engine', 'tx/s', 'p50 ms', 'p99 ms', 'errors', 'vs bare insert'],
    [
      row('bare Fastify + 1 SQLite INSERT (baseline)', baseline),
      row('content service, SQLite', sqlite),
      row('content service, SQLite, random ids from the client', sqliteRandomIds),
      ...(postgres ? [row('content service, PostgreSQL', postgres)] : []),
    ],
  );
  checkTarget('single-document mutations, SQLite', sqlite.rps, { atLeast: 2500 }, ' tx/s');
  if (postgres) checkTarget('single-document mutations, PostgreSQL', postgres.rps, { atLeast: 1000 }, ' tx/s');
}

if (import.meta.url === `file://${process.argv[1]}`) await runWriteBenchmark();
