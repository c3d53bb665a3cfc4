// What keeping the change log for history costs a write: single-document creates through the
// service's write path (runContentTransaction: document and its index, revision, event, change-log
// row), 16 at a time as bench/writes.ts sends them, on a database migrated up to 010 (the change
// log as listeners left it: created_at and commit-order indexes) and on one migrated to 011 (the
// document and transaction indexes history reads by). The code is the same; only the schema
// differs. Rounds alternate between the two in one process, so a busy machine slows both alike.
//
//   node bench/history-writes.ts        (SQLite, then PostgreSQL if it answers)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import BetterSqlite3 from 'better-sqlite3';
import { openSqliteDatabase } from '../src/store/sqlite/sqlite-database.ts';
import { openPostgresDatabase } from '../src/store/postgres/postgres-database.ts';
import { migrate } from '../src/store/migrate.ts';
import { migrations } from '../src/store/migrations/index.ts';
import { createStoreOn, type Store } from '../src/store/store.ts';
import type { Database } from '../src/store/sql.ts';
import { runContentTransaction } from '../src/content/transactions.ts';
import { benchPostgresUrl, printTable } from './lib/report.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 3000);
const IN_FLIGHT = 16;
const PROJECT = 'bench-project';
const BODY = 'x'.repeat(400);

interface Side {
  name: string;
  store: Store;
  rates: number[];
  /** This process's CPU time per transaction (µs): less disturbed by other processes than rates. */
  cpu: number[];
  written: number[];
  /** The change log's bytes per row, indexes included, once the rounds are done. */
  bytesPerRow?: number;
}

interface RoundResult {
  rate: number;
  cpuMicros: number;
  /** Bytes this process handed to write() per transaction (SQLite's WAL and checkpoints), where Linux counts them. */
  writtenBytes: number | undefined;
}

/** This process's `wchar` (bytes passed to write calls) from /proc/self/io; undefined elsewhere. */
function bytesWritten(): number | undefined {
  try {
    return Number(/wchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1]);
  } catch {
    return undefined;
  }
}

async function open(db: Database, upTo: number): Promise<Store> {
  await migrate(
    db,
    migrations.filter((migration) => migration.version <= upTo),
  );
  const store = createStoreOn(db);
  const now = new Date().toISOString();
  await store.projects.insert({ id: PROJECT, name: 'Bench', slug: PROJECT, datasets: ['production'], locales: null, createdAt: now, updatedAt: now });
  return store;
}

/** Creates documents, IN_FLIGHT at a time, for `ms`: transactions per second, CPU µs per transaction. */
async function round(store: Store, ms: number): Promise<RoundResult> {
  const until = performance.now() + ms;
  const cpu = process.cpuUsage();
  const written = bytesWritten();
  let done = 0;
  const worker = async () => {
    while (performance.now() < until) {
      await runContentTransaction(store, { projectId: PROJECT, dataset: 'production', actorId: 'bench' }, async (changes) => {
        const { transactionId, now } = changes.context;
        changes.put({ _id: `drafts.${randomBytes(16).toString('hex')}`, _type: 'benchPost', _rev: transactionId, _createdAt: now, _updatedAt: now, title: 'A benchmark post', body: BODY, n: 1 });
      });
      done++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const used = process.cpuUsage(cpu);
  const after = bytesWritten();
  return {
    rate: done / ((performance.now() - started) / 1000),
    cpuMicros: (used.user + used.system) / done,
    writtenBytes: written === undefined || after === undefined ? undefined : (after - written) / done,
  };
}

async function compare(engine: string, before: Store, after: Store, bytesPerRow: (side: 0 | 1) => Promise<number>): Promise<(string | number)[][]> {
  const sides: Side[] = [
    { name: 'before (migration 010)', store: before, rates: [], cpu: [], written: [] },
    { name: 'after (migration 011)', store: after, rates: [], cpu: [], written: [] },
  ];
  for (const side of sides) await round(side.store, 500); // warm up
  for (let r = 0; r < ROUNDS; r++) {
    // ABBA order, so neither side always runs first.
    for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
      const result = await round(side.store, ROUND_MS);
      side.rates.push(result.rate);
      side.cpu.push(result.cpuMicros);
      if (result.writtenBytes !== undefined) side.written.push(result.writtenBytes);
    }
  }
  sides[0]!.bytesPerRow = await bytesPerRow(0);
  sides[1]!.bytesPerRow = await bytesPerRow(1);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const baseRate = median(sides[0]!.rates);
  const baseCpu = median(sides[0]!.cpu);
  return sides.map((side) => [
    `${engine}: ${side.name}`,
    Math.round(median(side.rates)),
    `${((median(side.rates) / baseRate - 1) * 100).toFixed(1)}%`,
    Math.round(median(side.cpu)),
    `${((median(side.cpu) / baseCpu - 1) * 100).toFixed(1)}%`,
    // PostgreSQL writes in the server: only SQLite's writes are this process's.
    engine === 'SQLite' && side.written.length > 0 ? Math.round(median(side.written)) : '',
    Math.round(side.bytesPerRow ?? 0),
    side.rates.map((rate) => Math.round(rate)).join(' '),
  ]);
}

async function sqlite(): Promise<(string | number)[][]> {
  const dir = mkdtempSync(join(tmpdir(), 'cms-history-writes-'));
  const files = [join(dir, 'before.db'), join(dir, 'after.db')] as const;
  const before = await open(openSqliteDatabase(files[0]), 10);
  const after = await open(openSqliteDatabase(files[1]), 11);
  // The table and its indexes, from SQLite's page statistics (dbstat) on a connection of its own.
  const bytesPerRow = async (side: 0 | 1) => {
    const db = new BetterSqlite3(files[side], { readonly: true });
    try {
      const { bytes } = db
        .prepare(`SELECT SUM(pgsize) AS bytes FROM dbstat WHERE name = 'document_changes' OR name IN (SELECT name FROM sqlite_master WHERE tbl_name = 'document_changes' AND type = 'index')`)
        .get() as { bytes: number };
      const { rows } = db.prepare('SELECT COUNT(*) AS rows FROM document_changes').get() as { rows: number };
      return bytes / rows;
    } finally {
      db.close();
    }
  };
  try {
    return await compare('SQLite', before, after, bytesPerRow);
  } finally {
    await before.close();
    await after.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgres(url: string): Promise<(string | number)[][]> {
  const schemas = [`bench_hw_before_${process.pid}`, `bench_hw_after_${process.pid}`];
  const before = await open(openPostgresDatabase(url, { schema: schemas[0] }), 10);
  const after = await open(openPostgresDatabase(url, { schema: schemas[1] }), 11);
  const bytesPerRow = async (side: 0 | 1) => {
    const client = new pg.Client({ connectionString: url, options: `-c search_path=${schemas[side]}` });
    await client.connect();
    try {
      const { rows } = await client.query<{ bytes: string; count: string }>(
        `SELECT pg_total_relation_size('document_changes') AS bytes, (SELECT COUNT(*) FROM document_changes) AS count`,
      );
      return Number(rows[0]!.bytes) / Number(rows[0]!.count);
    } finally {
      await client.end();
    }
  };
  try {
    return await compare('PostgreSQL', before, after, bytesPerRow);
  } finally {
    await before.close();
    await after.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
}

export async function runHistoryWriteBenchmark(): Promise<void> {
  const rows = await sqlite();
  const url = await benchPostgresUrl();
  if (url) rows.push(...(await postgres(url)));
  printTable(
    `Single-document creates, ${IN_FLIGHT} in flight, ${ROUNDS} alternating rounds of ${ROUND_MS / 1000} s (in process, no HTTP; medians)`,
    ['schema', 'tx/s', 'vs before', 'CPU µs/tx', 'vs before', 'written B/tx', 'change log B/row', 'tx/s per round'],
    rows,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await runHistoryWriteBenchmark();
