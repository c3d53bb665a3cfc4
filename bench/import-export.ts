import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import type BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { startTestApp } from '../test/helpers/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../test/helpers/engine.ts';
import { openStore, type JsonObject, type StoredDocument } from '../src/store/index.ts';
import { documentChange, documentEvent, revisionOf, type ChangeContext } from '../src/content/change-set.ts';
import { baseIdOf } from '../src/content/document-ids.ts';
import { indexEntries } from '../src/store/document-index/entries.ts';
import { indexDialect } from '../src/store/document-index/dialects/dialect.ts';
import { encodedNumber } from '../src/store/document-index/values.ts';
import { openSqliteConnection } from '../src/store/sqlite/sqlite-database.ts';
import { writeDatasetNdjson } from './lib/dataset.ts';
import { benchPostgresUrl, printTable, ratio } from './lib/report.ts';
import { checkTarget } from './lib/targets.ts';

/**
 * Import and export of a generated dataset (~4.4 KB documents) through HTTP, with peak memory,
 * beside a hand-written bulk load of the same rows into the same engine: every row the import
 * writes (documents, revisions, outbox events, change log, document index), computed beforehand
 * and written with multi-row INSERTs in one transaction into a fresh database migrated by the
 * service. Run at two sizes, so memory that grows with the dataset shows.
 */
const SIZES = (process.env.BENCH_IMPORT_SIZES ?? '20000,100000').split(',').map(Number);
const DATASET = 'production';

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

/** Rows a statement: a few hundred, like the import's own multi-row INSERTs. */
const ROWS = 500;

/** One table's rows; `binaryJson` names the column stored as binary JSON (SQLite: jsonb(?)). */
interface TableRows {
  table: string;
  columns: readonly string[];
  binaryJson?: string;
  rows: unknown[][];
}

/** Orders rows by their key after project and dataset, as the import inserts index rows. */
function byKey(a: unknown[], b: unknown[]): number {
  for (let i = 2; i < a.length; i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * The rows an import of new `documents` writes, made with the service's own functions (change-set.ts,
 * entries.ts) so their contents match. Revision content and change mutations stay NULL, as the import leaves them.
 */
function importRows(documents: readonly (JsonObject & { _id: string; _type: string })[], projectId: string, engine: TestDatabase['engine']): TableRows[] {
  // Where the writers write a number's value row with its number (SQLite), the load does too.
  const numbers = indexDialect(engine).numbers === 'written';
  const context: ChangeContext = { projectId, dataset: DATASET, transactionId: randomUUID(), actorId: randomUUID(), now: new Date().toISOString() };
  const at = [projectId, DATASET];
  const rows: Record<'documents' | 'revisions' | 'outbox' | 'changes' | 'entries' | 'values' | 'references', unknown[][]> = {
    documents: [],
    revisions: [],
    outbox: [],
    changes: [],
    entries: [],
    values: [],
    references: [],
  };
  const shapes = new Map<string, unknown[]>();
  const latest = new Map<string, number>();
  for (const { _id, _type, ...fields } of documents) {
    const document: StoredDocument = { _id, _type, _rev: context.transactionId, _createdAt: context.now, _updatedAt: context.now, ...fields };
    rows.documents.push([...at, _id, _type, document._rev, document._createdAt, document._updatedAt, JSON.stringify(document)]);
    // Numbered per base id: a draft and its published form share one history.
    const revision = (latest.get(baseIdOf(_id)) ?? 0) + 1;
    latest.set(baseIdOf(_id), revision);
    const r = { ...revisionOf(context, document), revision };
    rows.revisions.push([r.id, ...at, r.documentId, r.revision, r.isDraft ? 1 : 0, r.transactionId, r.changedBy, r.createdAt]);
    const event = documentEvent(context, 'document.create', _id, _type);
    rows.outbox.push([...at, event.event, event.documentId, event.documentType, event.transactionId, JSON.stringify(event.payload), event.createdAt]);
    const change = documentChange(context, _id, null, document._rev);
    rows.changes.push([...at, change.documentId, change.transactionId, change.previousRev, change.resultRev, change.actor, change.createdAt]);
    const entries = indexEntries(document);
    rows.entries.push([...at, _id, entries.shape.hash, JSON.stringify(Object.fromEntries(entries.values)), JSON.stringify(entries.references)]);
    shapes.set(entries.shape.hash, [...at, entries.shape.hash, entries.shape.type, entries.shape.paths]);
    for (const [path, value] of entries.values) rows.values.push(numbers ? [...at, path, value, _id, encodedNumber(value)] : [...at, path, value, _id]);
    for (const target of entries.references) rows.references.push([...at, target, _id]);
  }
  // In key order, as the import has the database expand them.
  rows.values.sort(byKey);
  rows.references.sort(byKey);
  return [
    { table: 'documents', columns: ['project_id', 'dataset', 'id', 'type', 'rev', 'created_at', 'updated_at', 'content'], binaryJson: 'content', rows: rows.documents },
    { table: 'document_shapes', columns: ['project_id', 'dataset', 'shape', 'type', 'paths'], rows: [...shapes.values()] },
    { table: 'document_entries', columns: ['project_id', 'dataset', 'id', 'shape', 'vals', 'refs'], binaryJson: 'vals', rows: rows.entries },
    { table: 'document_values', columns: ['project_id', 'dataset', 'path', 'value', 'id', ...(numbers ? ['num'] : [])], rows: rows.values },
    { table: 'document_references', columns: ['project_id', 'dataset', 'target_id', 'id'], rows: rows.references },
    { table: 'revisions', columns: ['id', 'project_id', 'dataset', 'document_id', 'revision', 'is_draft', 'transaction_id', 'changed_by', 'created_at'], rows: rows.revisions },
    { table: 'outbox', columns: ['project_id', 'dataset', 'event', 'document_id', 'document_type', 'transaction_id', 'payload', 'created_at'], rows: rows.outbox },
    { table: 'document_changes', columns: ['project_id', 'dataset', 'document_id', 'transaction_id', 'previous_rev', 'result_rev', 'actor', 'created_at'], rows: rows.changes },
  ];
}

/** A connection of the driver itself: the bulk load's, and the one that counts an import's rows. */
interface Connection {
  /** The `n`th (from 1) placeholder of a statement, for a binary JSON column or not. */
  param(n: number, binaryJson: boolean): string;
  run(sql: string, params?: readonly unknown[]): Promise<void>;
  count(table: string): Promise<number>;
  close(): Promise<void>;
}

function sqliteConnection(file: string, readonly: boolean): Connection {
  const db = openSqliteConnection(file, readonly);
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    param: (_n, binaryJson) => (binaryJson ? 'jsonb(?)' : '?'),
    run: async (sql, params = []) => {
      let statement = statements.get(sql);
      if (!statement) statements.set(sql, (statement = db.prepare(sql)));
      statement.run(...params);
    },
    count: async (table) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n,
    close: async () => void db.close(),
  };
}

async function postgresConnection(url: string, schema: string): Promise<Connection> {
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  return {
    param: (n) => `$${n}`,
    run: async (sql, params = []) => void (await client.query(sql, [...params])),
    count: async (table) => Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n),
    close: () => client.end(),
  };
}

function connect(db: TestDatabase, readonly = false): Connection | Promise<Connection> {
  if (db.engine === 'sqlite') return sqliteConnection(db.databaseUrl.slice('sqlite:'.length), readonly);
  if (!db.schema) throw new Error('BUG: a PostgreSQL test database without its schema');
  return postgresConnection(db.databaseUrl, db.schema);
}

async function countRows(connection: Connection, tables: readonly string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of tables) counts[table] = await connection.count(table);
  return counts;
}

/** Bulk-loads the rows an import of `file` writes; resolves to documents per second and the rows per table. */
async function bulkLoad(file: string, pgUrl: string | undefined): Promise<{ rate: number; counts: Record<string, number> }> {
  const target = createTestDatabase(pgUrl);
  try {
    // The service's own schema, and the project that documents and revisions reference.
    const store = openStore(target.databaseUrl, target.schema ? { schema: target.schema } : {});
    const projectId = randomUUID();
    const now = new Date().toISOString();
    try {
      await store.migrate();
      await store.projects.insert({ id: projectId, name: 'Bench', slug: 'bench', datasets: [DATASET], locales: null, createdAt: now, updatedAt: now });
    } finally {
      await store.close();
    }
    const documents = (await readFile(file, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as JsonObject & { _id: string; _type: string });
    const connection = await connect(target);
    try {
      const statements: { sql: string; params: unknown[] }[] = [];
      const tables = importRows(documents, projectId, target.engine);
      for (const { table, columns, binaryJson, rows } of tables) {
        for (let start = 0; start < rows.length; start += ROWS) {
          const chunk = rows.slice(start, start + ROWS);
          const tuples = chunk.map((_, r) => `(${columns.map((column, c) => connection.param(r * columns.length + c + 1, column === binaryJson)).join(', ')})`);
          statements.push({ sql: `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`, params: chunk.flat() });
        }
      }
      const started = performance.now();
      await connection.run('BEGIN');
      for (const { sql, params } of statements) await connection.run(sql, params);
      await connection.run('COMMIT');
      const rate = documents.length / ((performance.now() - started) / 1000);
      return { rate, counts: await countRows(connection, tables.map((table) => table.table)) };
    } finally {
      await connection.close();
    }
  } finally {
    await target.drop();
  }
}

/** Imports and exports `file` through HTTP; `tables` are counted after the import. */
async function throughServer(file: string, count: number, pgUrl: string | undefined, tables: readonly string[]) {
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
    const connection = await connect(app.db, true);
    const counts = await countRows(connection, tables).finally(() => connection.close());
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
    return { counts, importRate: count / imported.seconds, importPeak: imported.peakMb, exportRate: count / exported.seconds, exportPeak: exported.peakMb };
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
        const bulk = await bulkLoad(file, url);
        const server = await throughServer(file, size, url, Object.keys(bulk.counts));
        if (JSON.stringify(server.counts) !== JSON.stringify(bulk.counts)) {
          throw new Error(`the bulk load wrote other rows than the import: ${JSON.stringify(bulk.counts)} against ${JSON.stringify(server.counts)}`);
        }
        if (size === 100_000 && engine === 'SQLite') checkTarget('import through HTTP, SQLite, 100,000 documents', server.importRate, { atLeast: 10_000 }, ' docs/s');
        checkTarget(`import against a hand-written bulk load, ${engine}, ${size.toLocaleString('en')} documents`, server.importRate / bulk.rate, { atLeast: 0.5 }, 'x');
        rows.push([
          `${engine}, ${size.toLocaleString('en')} docs (${meanKb.toFixed(1)} KB)`,
          Math.round(server.importRate),
          Math.round(bulk.rate),
          ratio(server.importRate, bulk.rate),
          server.importPeak.toFixed(0),
          Math.round(server.exportRate),
          server.exportPeak.toFixed(0),
        ]);
      }
    }
    printTable(
      'Import and export through HTTP (peak = resident memory growth during the operation, MB)',
      ['dataset', 'import docs/s', 'bulk load docs/s', 'import vs bulk load', 'import peak', 'export docs/s', 'export peak'],
      rows,
    );
    console.log('Also: export >= 30,000 docs/s; peaks independent of dataset size.');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runImportExportBenchmark();
