import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { startTestApp } from '../test/helpers/test-app.ts';
import { createTestDatabase } from '../test/helpers/engine.ts';
import { writeDatasetNdjson } from './lib/dataset.ts';
import { benchPostgresUrl, printTable, ratio } from './lib/report.ts';
import { checkTarget } from './lib/targets.ts';

/**
 * Import and export of a generated dataset (~4.4 KB documents) through HTTP, with peak memory,
 * beside a raw bulk insert of the same documents into the same engine (multi-row INSERTs in one
 * transaction, nothing else written). Run at two sizes, so memory that grows with the dataset shows.
 */
const SIZES = (process.env.BENCH_IMPORT_SIZES ?? '20000,100000').split(',').map(Number);

/** Runs `work`, sampling the resident set size; resolves to seconds taken and the peak growth in MB. */
async function measured<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number; peakMb: number }> {
  global.gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const started = performance.now();
  try {
    const value = await work();
    return { value, seconds: (performance.now() - started) / 1000, peakMb: (Math.max(peak, process.memoryUsage().rss) - base) / 1024 / 1024 };
  } finally {
    clearInterval(sampler);
  }
}

const ROWS = 500;

async function rawInsert(file: string, pgUrl: string | undefined): Promise<number> {
  const lines = (await import('node:fs/promises')).readFile(file, 'utf8').then((text) => text.split('\n').filter(Boolean));
  const documents = (await lines).map((line) => JSON.parse(line) as { _id: string; _type: string });
  const now = new Date().toISOString();
  const row = (d: { _id: string; _type: string }) => ['p', 'production', d._id, d._type, 'r', now, now, JSON.stringify(d)];
  const values = (n: number, dollar: boolean) =>
    Array.from({ length: n }, (_, r) => `(${Array.from({ length: 8 }, (_, c) => (dollar ? `$${r * 8 + c + 1}` : '?')).join(', ')})`).join(', ');
  if (!pgUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'cms-raw-'));
    const db = new BetterSqlite3(join(dir, 'raw.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec('CREATE TABLE documents (project_id TEXT, dataset TEXT, id TEXT, type TEXT, rev TEXT, created_at TEXT, updated_at TEXT, content TEXT, PRIMARY KEY (project_id, dataset, id))');
    const started = performance.now();
    const insert = db.prepare(`INSERT INTO documents VALUES ${values(ROWS, false)}`);
    db.transaction(() => {
      for (let i = 0; i < documents.length; i += ROWS) {
        const chunk = documents.slice(i, i + ROWS);
        if (chunk.length === ROWS) insert.run(...chunk.flatMap(row));
        else db.prepare(`INSERT INTO documents VALUES ${values(chunk.length, false)}`).run(...chunk.flatMap(row));
      }
    })();
    const rate = documents.length / ((performance.now() - started) / 1000);
    db.close();
    rmSync(dir, { recursive: true, force: true });
    return rate;
  }
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  const schema = `raw_${Date.now()}`;
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.query(`CREATE TABLE ${schema}.documents (project_id TEXT, dataset TEXT, id TEXT COLLATE "C", type TEXT, rev TEXT, created_at TIMESTAMPTZ, updated_at TIMESTAMPTZ, content JSONB, PRIMARY KEY (project_id, dataset, id))`);
  const started = performance.now();
  await client.query('BEGIN');
  for (let i = 0; i < documents.length; i += ROWS) {
    const chunk = documents.slice(i, i + ROWS);
    await client.query(`INSERT INTO ${schema}.documents VALUES ${values(chunk.length, true)}`, chunk.flatMap(row));
  }
  await client.query('COMMIT');
  const rate = documents.length / ((performance.now() - started) / 1000);
  await client.query(`DROP SCHEMA ${schema} CASCADE`);
  await client.end();
  return rate;
}

async function throughServer(file: string, count: number, pgUrl: string | undefined) {
  const app = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000000' }, { db: createTestDatabase(pgUrl) });
  try {
    const token = await app.login();
    await app.request('POST', '/api/v1/projects', { token, body: { name: 'Bench', slug: 'bench' } });
    const headers = { authorization: `Bearer ${token}`, 'x-project': 'bench' };
    const imported = await measured(async () => {
      // A Node stream as the body: fetch() with Readable.toWeb() read the whole file ahead of the
      // socket (879 MB of buffers at 100,000 documents), which the server's peak then counted.
      const response = await request(`${app.url}/api/v1/data/import/production`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-ndjson' },
        body: createReadStream(file),
      });
      const body = (await response.body.json()) as { created: number };
      if (body.created !== count) throw new Error(`import created ${body.created} of ${count}: ${JSON.stringify(body).slice(0, 300)}`);
      return body;
    });
    const exported = await measured(async () => {
      const response = await fetch(`${app.url}/api/v1/data/export/production`, { headers });
      let lines = 0;
      // Counted with indexOf: the client shares the server's thread, and a loop over every byte cost it a tenth of the time.
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
      }
      if (lines !== count) throw new Error(`export gave ${lines} of ${count} lines`);
      return lines;
    });
    return { importRate: count / imported.seconds, importPeak: imported.peakMb, exportRate: count / exported.seconds, exportPeak: exported.peakMb };
  } finally {
    await app.close();
  }
}

export async function runImportExportBenchmark(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cms-bench-io-'));
  const pgUrl = await benchPostgresUrl();
  try {
    const rows: (string | number)[][] = [];
    for (const size of SIZES) {
      const file = join(dir, `dataset-${size}.ndjson`);
      await writeDatasetNdjson(file, size);
      const meanKb = statSync(file).size / size / 1024;
      for (const [engine, url] of [['SQLite', undefined], ...(pgUrl ? [['PostgreSQL', pgUrl]] : [])] as [string, string | undefined][]) {
        const raw = await rawInsert(file, url);
        const server = await throughServer(file, size, url);
        if (size === 100_000 && engine === 'SQLite') checkTarget('import through HTTP, SQLite, 100,000 documents', server.importRate, { atLeast: 10_000 }, ' docs/s');
        checkTarget(`import against a raw insert, ${engine}, ${size.toLocaleString('en')} documents`, server.importRate / raw, { atLeast: 0.5 }, 'x');
        rows.push([
          `${engine}, ${size.toLocaleString('en')} docs (${meanKb.toFixed(1)} KB)`,
          Math.round(server.importRate),
          Math.round(raw),
          ratio(server.importRate, raw),
          server.importPeak.toFixed(0),
          Math.round(server.exportRate),
          server.exportPeak.toFixed(0),
        ]);
      }
    }
    printTable(
      'Import and export through HTTP (peak = resident memory growth during the operation, MB)',
      ['dataset', 'import docs/s', 'raw insert docs/s', 'import vs raw', 'import peak', 'export docs/s', 'export peak'],
      rows,
    );
    console.log('Also: export >= 30,000 docs/s; peaks independent of dataset size.');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runImportExportBenchmark();
