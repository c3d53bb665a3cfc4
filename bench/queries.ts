// GROQ queries answered from the document index (the query planner) at 100,000 documents, on
// SQLite and PostgreSQL, beside groq-js over the same documents in memory and beside the SQL a
// developer would write by hand for each question (bench/lib/query-cases.ts). Median server time
// of the query (evaluate() with the store's source, as the query endpoint runs it: prepared once,
// as its cache of prepared queries does for a text it has seen, and as groq-js's tree is parsed
// once below), then ratios. What preparing costs is printed beside the table.
// Our engines are measured before groq-js's in-memory copy of the dataset is made (about 1 GB of
// heap that a server does not hold, and whose collection slowed every query measured beside it).
// Also: the time to write the documents with their index, and a server process's memory with the
// dataset stored (resident after opening, peak during a full scan and a large streamed result).
//
//   npm run bench                                  # everything, 100k documents
//   node bench/queries.ts                          # this benchmark only
//   BENCH_QUERY_DOCS=1000000 node bench/queries.ts # 1M documents (groq-js skipped: ~8 GB in memory)
import * as groqJs from 'groq-js';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { evaluate, prepare } from '../src/groq/index.ts';
import { openStore, StoreDocumentSource, type Store, type StoredDocument } from '../src/store/index.ts';
import { authorId, generateDataset, postId, type Document } from './lib/dataset.ts';
import { HAND_INDEXES, queryCases, type HandSql, type QueryCase } from './lib/query-cases.ts';
import { benchPostgresUrl, printTable } from './lib/report.ts';
import { canonical, medianMs } from './lib/measure.ts';
import { checkTarget } from './lib/targets.ts';

const DOCUMENTS = Number(process.env.BENCH_QUERY_DOCS ?? 100_000);
/** groq-js holds every document in memory; beyond this many it is left out. */
const GROQ_JS_LIMIT = 200_000;
const PROJECT = 'bench';
const BENCH_TIME = '2025-01-01T00:00:00.000Z';
const DATASET = 'production';
/** Each measurement repeats until it has run this long (and at least MIN_RUNS times). */
const BUDGET_MS = 400;
/** The JavaScript heap the memory process may use. */
const HEAP_LIMIT_MB = 128;
const MIN_RUNS = 5;
const median = (run: () => unknown, minRuns = MIN_RUNS, budgetMs = BUDGET_MS) => medianMs(run, { minRuns, budgetMs });

interface Engine {
  name: 'sqlite' | 'postgres';
  store: Store;
  /** Runs hand-written SQL on a connection of its own. */
  sql(query: HandSql): Promise<unknown[]>;
  /** Runs a statement that returns nothing (DDL, maintenance). */
  exec(statement: string): Promise<void>;
  close(): Promise<void>;
  /** For the memory process: how to open this store. */
  url: string;
  schema: string | null;
}

async function openSqlite(dir: string): Promise<Engine> {
  const file = join(dir, 'content.db');
  const store = openStore(`sqlite:${file}`);
  await store.migrate();
  let raw: BetterSqlite3.Database | undefined;
  const connection = () => (raw ??= new BetterSqlite3(file));
  return {
    name: 'sqlite',
    store,
    url: `sqlite:${file}`,
    schema: null,
    async sql(query) {
      return connection().prepare(query.sql).all(...query.params);
    },
    async exec(statement) {
      connection().exec(statement);
    },
    async close() {
      raw?.close();
      await store.close();
    },
  };
}

async function openPostgres(url: string): Promise<Engine> {
  const schema = `bench_queries_${process.pid}`;
  const store = openStore(url, { schema });
  await store.migrate();
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  return {
    name: 'postgres',
    store,
    url,
    schema,
    async sql(query) {
      return (await client.query(query.sql, query.params)).rows;
    },
    async exec(statement) {
      await client.query(statement);
    },
    async close() {
      await store.close();
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    },
  };
}

/** Writes the dataset through the store (documents and their index, 5,000 to a transaction). */
async function load(engine: Engine): Promise<number> {
  // One instant for every engine (and for groq-js's copy), so that results compare equal.
  const now = BENCH_TIME;
  await engine.store.projects.insert({ id: PROJECT, name: 'Bench', slug: PROJECT, datasets: [DATASET], locales: null, createdAt: now, updatedAt: now });
  const started = performance.now();
  let batch: StoredDocument[] = [];
  const flush = async () => {
    const documents = batch;
    batch = [];
    await engine.store.transaction((tx) => tx.documents.putMany(PROJECT, DATASET, documents));
  };
  for (const document of generateDataset(DOCUMENTS)) {
    batch.push({ ...document, _rev: 'bench', _createdAt: now, _updatedAt: now });
    if (batch.length === 5000) await flush();
  }
  await flush();
  const seconds = (performance.now() - started) / 1000;
  for (const statement of HAND_INDEXES[engine.name]) await engine.exec(statement);
  // No ANALYZE or VACUUM here: queries meet the statistics the store itself keeps after bulk writes
  // (docs/decisions.md, Storage), as a user's right after an import do.
  return seconds;
}

function memoryOf(engine: Engine): Record<string, number> {
  const script = join(import.meta.dirname, 'lib', 'query-memory-process.ts');
  // A small heap: if anything grew with the dataset, the process would run out of memory.
  const output = execFileSync(process.execPath, ['--expose-gc', `--max-old-space-size=${HEAP_LIMIT_MB}`, script, engine.url, engine.schema ?? '-', PROJECT, DATASET], {
    encoding: 'utf8',
  });
  return JSON.parse(output.trim().split('\n').pop()!) as Record<string, number>;
}

/** a / b, with as many decimals as make it readable. */
function times(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || b === 0) return 'n/a';
  const r = a / b;
  return `${r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r >= 0.1 ? r.toFixed(2) : r.toPrecision(1)}x`;
}

const ms = (n: number | undefined): string => (n === undefined ? 'n/a' : n < 1 ? n.toFixed(3) : n < 100 ? n.toFixed(1) : n.toFixed(0));

/** The scans that must be at least 5x groq-js, and the lookups PostgreSQL must answer within 1.5x of hand-written SQL. */
const SCANS_AGAINST_GROQ_JS = ['scan: sum of views', 'scan: match on title', 'scan: distinct authors'];
const LOOKUPS = ['lookup by _id', 'lookup by slug', 'references()'];

export async function runQueryBenchmark(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cms-bench-queries-'));
  const pgUrl = await benchPostgresUrl();
  const engines: Engine[] = [await openSqlite(dir), ...(pgUrl ? [await openPostgres(pgUrl)] : [])];
  const posts = Math.floor(DOCUMENTS * 0.9);
  const cases = queryCases(PROJECT, DATASET, { post: postId(Math.floor(posts / 2)), slug: `post-${Math.floor(posts / 3)}`, author: authorId(3) });
  try {
    const loads: string[] = [];
    for (const engine of engines) loads.push(`${engine.name} ${(await load(engine)).toFixed(1)} s`);
    console.log(`\nGROQ over ${DOCUMENTS.toLocaleString('en')} documents: written with their index in ${loads.join(', ')}`);

    // Our engines first, in a process that does not yet hold groq-js's copy of the dataset: a
    // server holds no such heap, whose collection would be counted in every query's time.
    const measured: Measured[] = [];
    for (const c of cases) measured.push(await measureOurs(c, engines));
    const groqJsRuns: ({ ms: number; estimated: boolean } | undefined)[] = cases.map(() => undefined);
    if (DOCUMENTS <= GROQ_JS_LIMIT) {
      const dataset = [...generateDataset(DOCUMENTS)]
        .map((document) => ({ ...document, _rev: 'bench', _createdAt: BENCH_TIME, _updatedAt: BENCH_TIME }))
        .sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
      for (const [i, c] of cases.entries()) groqJsRuns[i] = await measureGroqJs(c, dataset, measured[i]!.reference);
    }
    const rows = cases.map((c, i) => row(c, measured[i]!, groqJsRuns[i]));
    printTable(
      `Median ms per query (${DOCUMENTS.toLocaleString('en')} documents); ratios: groq-js / ours (higher: we are faster), ours / hand-written SQL (lower: closer)`,
      ['query', 'SQLite', 'PostgreSQL', 'groq-js', 'SQL SQLite', 'SQL PG', 'groq-js/SQLite', 'groq-js/PG', 'SQLite/SQL', 'PG/SQL'],
      rows,
    );
    console.log('(est.) = extrapolated from a sample.');
    for (const [i, c] of cases.entries()) {
      const groqJsMs = groqJsRuns[i]?.ms;
      for (const engine of engines) {
        const ours = measured[i]!.ours[engine.name]!;
        if (SCANS_AGAINST_GROQ_JS.includes(c.name) && groqJsMs !== undefined) checkTarget(`${c.name}, ${engine.name}, against groq-js`, groqJsMs / ours, { atLeast: 5 }, 'x');
        if (engine.name === 'postgres' && LOOKUPS.includes(c.name)) checkTarget(`${c.name}, PostgreSQL, against its hand-written SQL`, ours / measured[i]!.hand[engine.name]!, { atMost: 1.5 }, 'x');
      }
    }
    const preparing: string[] = [];
    for (const c of cases) preparing.push(`${c.name} ${ms(await median(async () => prepare(c.groq), MIN_RUNS, 100))}`);
    console.log(`Preparing (parsing, planning, compiling; the endpoint does it once per query text, the table does not count it), median ms: ${preparing.join('; ')}`);
    for (const engine of engines) {
      const memory = memoryOf(engine);
      console.log(
        `Memory (${engine.name}, separate process, heap limited to ${HEAP_LIMIT_MB} MB): ${memory.openedMb} MB resident with the store open, ` +
          `${memory.beforeScanMb} MB after a first query; peak ${memory.fullScanPeakMb} MB during the full scan, ` +
          `${memory.streamPeakMb} MB while ${memory.streamedItems} projections with bodies stream out`,
      );
    }
  } finally {
    for (const engine of engines) await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Measured {
  ours: Record<string, number>;
  hand: Record<string, number>;
  /** The result, as the first engine gave it (every engine must give the same). */
  reference: unknown;
}

/** Our engines and the hand-written SQL, each measured on its own, the results compared. */
async function measureOurs(c: QueryCase, engines: Engine[]): Promise<Measured> {
  const ours: Record<string, number> = {};
  const hand: Record<string, number> = {};
  let reference: unknown;
  for (const engine of engines) {
    const prepared = prepare(c.groq);
    const run = () => evaluate(prepared, { source: new StoreDocumentSource(engine.store, PROJECT, DATASET) });
    const result = canonical(await run());
    if (reference === undefined) reference = result;
    else if (!isDeepStrictEqual(result, reference)) throw new Error(`${c.name}: ${engine.name} gives another result than ${engines[0]!.name}`);
    ours[engine.name] = await median(run);
    hand[engine.name] = await median(() => engine.sql(engine.name === 'sqlite' ? c.sqlite : c.postgres), 3);
  }
  return { ours, hand, reference };
}

/** groq-js over the documents in memory (its result compared with ours), and whether it was extrapolated. */
async function measureGroqJs(c: QueryCase, dataset: Document[], reference: unknown): Promise<{ ms: number; estimated: boolean }> {
  const tree = groqJs.parse(c.groq);
  const runGroqJs = async () => (await groqJs.evaluate(tree, { dataset })).get();
  if (c.name === 'subquery per author') {
    // About 26 minutes whole: a sample of authors, scaled to all of them.
    const sample = 3;
    const authors = dataset.filter((d) => d._type === 'author').length;
    const sampled = groqJs.parse(c.groq.replace('*[_type == "author"]', `*[_type == "author"][0...${sample}]`));
    const t = performance.now();
    await (await groqJs.evaluate(sampled, { dataset })).get();
    return { ms: ((performance.now() - t) / sample) * authors, estimated: true };
  }
  if (!isDeepStrictEqual(canonical(await runGroqJs()), reference)) throw new Error(`${c.name}: groq-js gives another result`);
  return { ms: await median(runGroqJs, 3, 0), estimated: false };
}

function row(c: QueryCase, { ours, hand }: Measured, groqJsRun: { ms: number; estimated: boolean } | undefined): string[] {
  const groqJsMs = groqJsRun?.ms;
  return [
    c.name,
    ms(ours['sqlite']),
    ms(ours['postgres']),
    groqJsRun === undefined ? 'n/a' : `${ms(groqJsRun.ms)}${groqJsRun.estimated ? ' (est.)' : ''}`,
    ms(hand['sqlite']),
    ms(hand['postgres']),
    times(groqJsMs, ours['sqlite']),
    times(groqJsMs, ours['postgres']),
    times(ours['sqlite'], hand['sqlite']),
    times(ours['postgres'], hand['postgres']),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) await runQueryBenchmark();
