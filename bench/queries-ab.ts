// The query benchmark's questions (bench/lib/query-cases.ts) answered by two checkouts of this
// repository in one process, on one database, alternately: how a change to the query path compares
// with the commit it started from, as ratios measured side by side rather than in runs apart.
// The dataset is written once by the first checkout's store; each checkout reads it through its
// own store, document source and evaluator. Each round measures both (in turn A B, then B A), and
// the ratio B / A is the median of the rounds'.
//
//   git worktree add --detach /tmp/base <commit> && ln -s "$PWD/node_modules" /tmp/base/node_modules
//   node --expose-gc bench/queries-ab.ts /tmp/base .            # SQLite and PostgreSQL, 100k documents
//   BENCH_QUERY_DOCS=20000 BENCH_AB_ROUNDS=3 node bench/queries-ab.ts /tmp/base .
//   BENCH_AB_ENGINES=sqlite BENCH_AB_QUERIES='scan' node bench/queries-ab.ts /tmp/base .   # some queries on one engine
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { benchPostgresUrl, printTable } from './lib/report.ts';
import { canonical, medianMs, middle } from './lib/measure.ts';

const DOCUMENTS = Number(process.env.BENCH_QUERY_DOCS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 5);
const PROJECT = 'bench';
const DATASET = 'production';
const NOW = '2025-01-01T00:00:00.000Z';
/** Each measurement repeats until it has run this long (and at least MIN_RUNS times). */
const BUDGET_MS = 300;
const MIN_RUNS = 5;
const median = (run: () => unknown) => medianMs(run, { minRuns: MIN_RUNS, budgetMs: BUDGET_MS });

interface Checkout {
  root: string;
  evaluate(query: unknown, options: { source: unknown }): Promise<unknown>;
  prepare(query: string): unknown;
  openStore(url: string, options?: { schema?: string }): Store;
  StoreDocumentSource: new (store: Store, projectId: string, dataset: string) => unknown;
}

interface Store {
  migrate(): Promise<unknown>;
  close(): Promise<void>;
  projects: { insert(project: Record<string, unknown>): Promise<unknown> };
  transaction<T>(fn: (tx: { documents: { putMany(p: string, d: string, docs: unknown[]): Promise<unknown> } }) => Promise<T>): Promise<T>;
}

async function checkout(root: string): Promise<Checkout> {
  const groq = await import(join(resolve(root), 'src/groq/index.ts'));
  const store = await import(join(resolve(root), 'src/store/index.ts'));
  const source = store.StoreDocumentSource ?? (await import(join(resolve(root), 'src/content/query/store-document-source.ts'))).StoreDocumentSource;
  return { root, evaluate: groq.evaluate, prepare: groq.prepare, openStore: store.openStore, StoreDocumentSource: source };
}

async function compare(engine: string, url: string, schema: string | undefined, a: Checkout, b: Checkout): Promise<string[][]> {
  const { generateDataset, authorId, postId } = await import(join(resolve(a.root), 'bench/lib/dataset.ts'));
  const { queryCases } = await import(join(resolve(a.root), 'bench/lib/query-cases.ts'));
  const options = schema ? { schema } : {};
  const storeA = a.openStore(url, options);
  await storeA.migrate();
  await storeA.projects.insert({ id: PROJECT, name: 'Bench', slug: PROJECT, datasets: [DATASET], locales: null, createdAt: NOW, updatedAt: NOW });
  let batch: unknown[] = [];
  for (const document of generateDataset(DOCUMENTS) as Iterable<Record<string, unknown>>) {
    batch.push({ ...document, _rev: 'bench', _createdAt: NOW, _updatedAt: NOW });
    if (batch.length === 5000) {
      const documents = batch;
      batch = [];
      await storeA.transaction((tx) => tx.documents.putMany(PROJECT, DATASET, documents));
    }
  }
  if (batch.length > 0) await storeA.transaction((tx) => tx.documents.putMany(PROJECT, DATASET, batch));
  const storeB = b.openStore(url, options);
  // The second checkout's migrations too (what it adds, the first's code reads past): its index may need them.
  await storeB.migrate();
  const posts = Math.floor(DOCUMENTS * 0.9);
  const cases = queryCases(PROJECT, DATASET, { post: postId(Math.floor(posts / 2)), slug: `post-${Math.floor(posts / 3)}`, author: authorId(3) }) as { name: string; groq: string }[];
  const only = process.env.BENCH_AB_QUERIES === undefined ? undefined : new RegExp(process.env.BENCH_AB_QUERIES);
  const runs = cases.filter((c) => !only || only.test(c.name)).map((c) => {
    const preparedA = a.prepare(c.groq);
    const preparedB = b.prepare(c.groq);
    return {
      name: c.name,
      a: () => a.evaluate(preparedA, { source: new a.StoreDocumentSource(storeA, PROJECT, DATASET) }),
      b: () => b.evaluate(preparedB, { source: new b.StoreDocumentSource(storeB, PROJECT, DATASET) }),
    };
  });
  for (const run of runs) {
    if (!isDeepStrictEqual(canonical(await run.a()), canonical(await run.b()))) throw new Error(`${engine} ${run.name}: the checkouts give other results`);
  }
  // PostgreSQL's store refreshes the planner's statistics in the background after the load.
  await new Promise((done) => setTimeout(done, 6000));
  const rows: string[][] = [];
  for (const run of runs) {
    const msA: number[] = [];
    const msB: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ([run.a, run.b] as const) : ([run.b, run.a] as const);
      const first = await median(order[0]);
      const second = await median(order[1]);
      const [ta, tb] = round % 2 === 0 ? [first, second] : [second, first];
      msA.push(ta);
      msB.push(tb);
      ratios.push(tb / ta);
    }
    const ratio = middle(ratios);
    rows.push([run.name, middle(msA).toFixed(3), middle(msB).toFixed(3), `${ratio.toFixed(2)}x`, `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`]);
    console.log(`${engine} ${run.name}: ${rows[rows.length - 1]!.slice(1).join(' ')}`);
  }
  await storeB.close();
  await storeA.close();
  return rows;
}

const [rootA, rootB] = process.argv.slice(2);
if (!rootA || !rootB) throw new Error('usage: node bench/queries-ab.ts <checkout A> <checkout B>');
const a = await checkout(rootA);
const b = await checkout(rootB);
const dir = mkdtempSync(join(tmpdir(), 'cms-bench-ab-'));
try {
  const engines: [string, string, string | undefined][] = [['sqlite', `sqlite:${join(dir, 'content.db')}`, undefined]];
  const pgUrl = process.env.BENCH_AB_ENGINES === 'sqlite' ? undefined : await benchPostgresUrl();
  if (pgUrl) engines.push(['postgres', pgUrl, `bench_ab_${process.pid}`]);
  for (const [engine, url, schema] of engines) {
    if (process.env.BENCH_AB_ENGINES && !process.env.BENCH_AB_ENGINES.split(',').includes(engine)) continue;
    const rows = await compare(engine, url, schema, a, b);
    printTable(`${engine}, ${DOCUMENTS.toLocaleString('en')} documents, ${ROUNDS} alternating rounds: median ms of A (${rootA}) and B (${rootB}), B / A (median of rounds, and their range)`, ['query', 'A ms', 'B ms', 'B / A', 'range'], rows);
    if (schema) {
      const pg = await import('pg');
      const client = new pg.default.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
