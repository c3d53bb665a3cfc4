// The query benchmark's questions (bench/lib/query-cases.ts) right after an import through the
// API, as a user meets them: a server imports the generated dataset (POST /data/import as NDJSON)
// and the queries run at once, with no ANALYZE but what the service runs itself; again once the
// service's refresh of statistics is done; then after a manual ANALYZE, for comparison. On PostgreSQL statements time out after 60 s
// (a database of its own carries the setting, so nothing else on the server is touched).
//
//   node bench/queries-after-import.ts                                  # PostgreSQL, 100,000 documents
//   BENCH_AFTER_IMPORT_DOCS=20000 node bench/queries-after-import.ts
//   BENCH_AFTER_IMPORT_ENGINE=sqlite node bench/queries-after-import.ts
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import pg from 'pg';
import BetterSqlite3 from 'better-sqlite3';
import { evaluate, prepare } from '../src/groq/index.ts';
import { StoreDocumentSource } from '../src/store/index.ts';
import { startTestApp, type TestApp } from '../test/helpers/test-app.ts';
import { createTestDatabase } from '../test/helpers/engine.ts';
import { authorId, postId, writeDatasetNdjson } from './lib/dataset.ts';
import { queryCases } from './lib/query-cases.ts';
import { benchPostgresUrl, printTable } from './lib/report.ts';
import { defaultServerLog } from './lib/server-log.ts';

const DOCUMENTS = Number(process.env.BENCH_AFTER_IMPORT_DOCS ?? 100_000);
const ENGINE = process.env.BENCH_AFTER_IMPORT_ENGINE === 'sqlite' ? 'sqlite' : 'postgres';
const DATASET = 'production';
const TIMEOUT_S = 60;
const BUDGET_MS = 400;

async function importFile(app: TestApp, token: string, file: string): Promise<void> {
  const response = await request(`${app.url}/api/v1/data/import/${DATASET}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'x-project': 'bench', 'content-type': 'application/x-ndjson' },
    body: createReadStream(file),
  });
  const body = (await response.body.json()) as { created: number };
  if (body.created !== DOCUMENTS) throw new Error(`import created ${body.created} of ${DOCUMENTS}`);
}

/** Median ms of `run` (at least three runs after a first, more within the budget), or why there is none. */
async function median(run: () => Promise<unknown>): Promise<string> {
  const times: number[] = [];
  const started = performance.now();
  try {
    for (let i = 0; i <= 3 || performance.now() - started < BUDGET_MS; i++) {
      const t = performance.now();
      await run();
      if (i > 0) times.push(performance.now() - t);
    }
  } catch (error) {
    if ((error as { code?: string }).code === '57014') return `> ${TIMEOUT_S} s`;
    throw error;
  }
  times.sort((a, b) => a - b);
  const value = times[Math.floor(times.length / 2)]!;
  return value < 1 ? value.toFixed(3) : value < 100 ? value.toFixed(1) : value.toFixed(0);
}

/** A PostgreSQL database of its own whose statements time out, dropped by `drop()`. */
async function timedDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const database = `cms_after_import_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.query(`ALTER DATABASE ${database} SET statement_timeout = '${TIMEOUT_S}s'`);
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** Seconds until the planner's statistics of documents know the dataset (the service's own ANALYZE), polled. */
async function statisticsKnown(app: TestApp, since: number): Promise<number | undefined> {
  if (app.db.engine !== 'postgres') return undefined;
  const client = new pg.Client({ connectionString: app.db.databaseUrl, options: `-c search_path=${app.db.schema}` });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query(
        "SELECT 1 FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'documents' AND attname = 'dataset' AND $1 = ANY (most_common_vals::text::text[])",
        [DATASET],
      );
      if (rows.length > 0) return (performance.now() - since) / 1000;
      if (performance.now() - since > TIMEOUT_S * 1000) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await client.end();
  }
}

/** ANALYZE as an operator would run it by hand. */
async function analyze(app: TestApp): Promise<void> {
  if (app.db.engine === 'sqlite') {
    const db = new BetterSqlite3(join(app.db.dataDir, 'content.db'));
    db.exec('ANALYZE');
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: app.db.databaseUrl, options: `-c search_path=${app.db.schema}` });
  await client.connect();
  await client.query('ANALYZE');
  await client.end();
}

async function main(): Promise<void> {
  const serverUrl = ENGINE === 'postgres' ? await benchPostgresUrl() : undefined;
  if (ENGINE === 'postgres' && !serverUrl) return;
  const database = serverUrl ? await timedDatabase(serverUrl) : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'cms-after-import-'));
  let app: TestApp | undefined;
  try {
    const file = join(dir, 'dataset.ndjson');
    await writeDatasetNdjson(file, DOCUMENTS);
    // The import answers once it has committed, its connection quiet meanwhile: past the default
    // idle timeout (60 s) the server would close it first.
    app = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000000', REQUEST_IDLE_TIMEOUT_MS: '3600000' }, { db: createTestDatabase(database?.url), log: defaultServerLog() });
    const token = await app.login();
    const project = await app.request<{ id: string }>('POST', '/api/v1/projects', { token, body: { name: 'Bench', slug: 'bench' } });
    const started = performance.now();
    await importFile(app, token, file);
    const imported = performance.now();
    console.log(`\nImported ${DOCUMENTS.toLocaleString('en')} documents through the API in ${((imported - started) / 1000).toFixed(1)} s`);
    const known = statisticsKnown(app, imported);
    const posts = Math.floor(DOCUMENTS * 0.9);
    const cases = queryCases(project.body.id, DATASET, { post: postId(Math.floor(posts / 2)), slug: `post-${Math.floor(posts / 3)}`, author: authorId(3) });
    const store = app.services.store;
    const measure = async () => {
      const results: string[] = [];
      for (const c of cases) {
        const prepared = prepare(c.groq);
        results.push(await median(() => evaluate(prepared, { source: new StoreDocumentSource(store, project.body.id, DATASET) })));
      }
      return results;
    };
    const first = await measure();
    const knownAfter = await known;
    if (app.db.engine === 'postgres') {
      console.log(`The planner's statistics knew the imported documents ${knownAfter === undefined ? 'not within 60 s' : `${knownAfter.toFixed(1)} s`} after the import answered`);
    }
    // Once whatever the service does after an import is done (nothing, on SQLite).
    const settled = await measure();
    await analyze(app);
    const analyzed = await measure();
    printTable(
      `${ENGINE}, ${DOCUMENTS.toLocaleString('en')} documents: median ms per query right after the import, once the service's own refresh of statistics is done, and after a manual ANALYZE`,
      ['query', 'right after import', 'after its refresh', 'after ANALYZE'],
      cases.map((c, i) => [c.name, first[i]!, settled[i]!, analyzed[i]!]),
    );
  } finally {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
    await database?.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
