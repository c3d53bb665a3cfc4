// Sanity's History API at a realistic size: Studio asks for a document's last 50 transactions with
// mendoza effects every time the document is opened. One post (~4.4 KB) with BENCH_HISTORY_TARGET
// (500) transactions written through the service's write path (ChangeSet: edits of a span of its
// draft, a publish every tenth, which deletes the draft) among BENCH_HISTORY_TRANSACTIONS (100,000)
// transactions of 20,000 other documents in the change log and the revisions.
//
//   node bench/history.ts            (SQLite, then PostgreSQL if it answers)
import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../test/helpers/test-app.ts';
import { createTestDatabase } from '../test/helpers/engine.ts';
import { withChangeSet } from '../src/content/transactions.ts';
import { TransactionHistory } from '../src/content/transaction-history.ts';
import { CLI_PRINCIPAL } from '../src/access/system-principal.ts';
import type { ChangeSet } from '../src/content/change-set.ts';
import type { StoredDocument } from '../src/store/index.ts';
import type { DocumentChangeRecord } from '../src/store/repos/document-changes.ts';
import type { NewRevision } from '../src/store/repos/revisions.ts';
import { generateDataset, type Document } from './lib/dataset.ts';
import { benchPostgresUrl, printTable } from './lib/report.ts';
import { loadTest } from './lib/http-load.ts';

const OTHERS = Number(process.env.BENCH_HISTORY_TRANSACTIONS ?? 100_000);
const TARGET_TRANSACTIONS = Number(process.env.BENCH_HISTORY_TARGET ?? 500);
/** The others are transactions of this many documents, each written again and again. */
const OTHER_DOCUMENTS = 20_000;
const SAMPLES = 200;
const LOAD_SECONDS = Number(process.env.BENCH_DURATION_S ?? 6);
const STUDIO_QUERY =
  'tag=sanity.studio.structure.history&effectFormat=mendoza&excludeContent=true&excludeMutations=true&includeIdentifiedDocumentsOnly=true&reverse=true&limit=50';
const TARGET = 'post-target';

/** A copy of the document with one word of one span changed (an editor's keystrokes, saved). */
function edit(document: StoredDocument, n: number): Record<string, unknown> {
  const copy = structuredClone(document) as unknown as Record<string, unknown> & { body: { children: { text: string }[] }[] };
  const block = copy.body[n % copy.body.length]!;
  const span = block.children[0]!;
  // Eight characters for eight: the document keeps its size however many edits it has.
  span.text = `${span.text.slice(0, 40)} e${String(n % 100_000).padStart(5, '0')} ${span.text.slice(48)}`;
  return copy;
}

function put(changes: ChangeSet, document: Record<string, unknown>, created: boolean): void {
  const { transactionId, now } = changes.context;
  changes.put({ ...document, _rev: transactionId, _updatedAt: now, _createdAt: created ? now : String(document._createdAt) } as StoredDocument);
}

async function load(app: TestApp, projectId: string): Promise<number> {
  const store = app.services.store;
  const started = performance.now();
  const dataset = 'production';
  const time = (n: number) => new Date(Date.UTC(2025, 0, 1) + n * 1000).toISOString();
  // The others: change-log rows and revisions as the write path leaves them, written in bulk (the
  // history reads never open them; their rows make the tables and indexes as large as they would be).
  const others = async (from: number, to: number) => {
    const changes: DocumentChangeRecord[] = [];
    const revisions: NewRevision[] = [];
    for (let n = from; n < to; n++) {
      const documentId = `other-${n % OTHER_DOCUMENTS}`;
      const revision = Math.floor(n / OTHER_DOCUMENTS) + 1;
      const transactionId = `tx-${n}`;
      const previous = revision === 1 ? null : `tx-${n - OTHER_DOCUMENTS}`;
      changes.push({ projectId, dataset, documentId, transactionId, previousRev: previous, resultRev: transactionId, actor: 'bench-user', createdAt: time(n) });
      revisions.push({ id: randomUUID(), projectId, dataset, documentId, revision, isDraft: false, transactionId, changedBy: 'bench-user', createdAt: time(n) });
    }
    await store.transaction(async (tx) => {
      await tx.revisions.insertMany(revisions);
      await tx.changes.appendMany(changes);
    });
  };
  // The target's transactions, through the write path, spread evenly among the others.
  let target: Document | undefined;
  for (const document of generateDataset(200)) if (document._type === 'post' && !document._id.startsWith('drafts.')) target ??= document;
  const draftId = `drafts.${TARGET}`;
  const targetStep = (n: number) =>
    store.transaction((tx) =>
      withChangeSet(tx, { projectId, dataset, actorId: 'bench-user', now: new Date(time(Math.floor(((n + 0.5) * OTHERS) / TARGET_TRANSACTIONS))) }, async (changes) => {
        if (n % 10 === 9) {
          // Publish: the draft becomes the published document and is deleted.
          const draft = (await changes.get(draftId))!;
          const published = await changes.get(TARGET);
          put(changes, { ...draft, _id: TARGET, _createdAt: published?._createdAt ?? draft._createdAt }, false);
          changes.remove(draftId);
          return;
        }
        const draft = (await changes.get(draftId)) ?? (await changes.get(TARGET));
        if (!draft) return put(changes, { ...target!, _id: draftId }, true);
        put(changes, { ...edit(draft, n), _id: draftId }, false);
      }),
    );
  const chunk = OTHERS / TARGET_TRANSACTIONS;
  for (let n = 0; n < TARGET_TRANSACTIONS; n++) {
    await others(Math.round(n * chunk), Math.round((n + 1) * chunk));
    await targetStep(n);
  }
  return (performance.now() - started) / 1000;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Sequential requests, one at a time: the latency an editor opening the document sees. */
async function latency(url: string, token: string): Promise<{ p50: number; p95: number; bytes: number; lines: number }> {
  const times: number[] = [];
  let bytes = 0;
  let lines = 0;
  for (let i = 0; i < SAMPLES + 20; i++) {
    const started = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${response.status} ${text}`);
    if (i >= 20) times.push(performance.now() - started);
    bytes = text.length;
    lines = text.split('\n').filter(Boolean).length;
  }
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95), bytes, lines };
}

/**
 * Studio's request without the effects cache and without HTTP, as the first open of a document
 * costs (every effect computed from the revisions); the body is the same.
 */
async function inProcess(app: TestApp, projectId: string): Promise<{ p50: number; p95: number; bytes: number; lines: number }> {
  const history = new TransactionHistory(app.services.store, { effectsCacheChars: 0 });
  const project = (await app.services.store.projects.findById(projectId))!;
  const query = { documentIds: [TARGET, `drafts.${TARGET}`], excludeContent: true, effects: true, mutations: false, reverse: true, limit: 50, identifiedOnly: true };
  const times: number[] = [];
  let bytes = 0;
  let lines = 0;
  for (let i = 0; i < SAMPLES + 20; i++) {
    const started = performance.now();
    bytes = 0;
    lines = 0;
    for await (const piece of await history.transactions(CLI_PRINCIPAL, project, 'production', query)) {
      bytes += piece.length;
      lines += piece.split('\n').length - 1;
    }
    if (i >= 20) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95), bytes, lines };
}

async function run(engine: string, pgUrl: string | undefined): Promise<(string | number)[][]> {
  const env = { RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'silent' };
  const loading = await startTestApp(env, { db: createTestDatabase(pgUrl) });
  const project = (
    await loading.request<{ id: string; slug: string }>('POST', '/api/v1/projects', { token: await loading.login(), body: { name: 'Bench', slug: 'bench' } })
  ).body;
  const seconds = await load(loading, project.id);
  console.log(`${engine}: ${OTHERS + TARGET_TRANSACTIONS} transactions written in ${seconds.toFixed(1)} s`);
  // Started again on the same database, as after an upgrade or a restart: PostgreSQL's statistics
  // are refreshed at start where missing (the bulk rows above were not counted as document writes).
  await loading.close({ keepDatabase: true });
  const app = await startTestApp(env, { db: loading.db });
  try {
    const token = await app.login();
    const base = `${app.url}/api/p/bench/v2025-02-19/data/history/production`;
    const ids = `${TARGET},drafts.${TARGET}`;
    const first = await latency(`${base}/transactions/${ids}?${STUDIO_QUERY}`, token);
    const firstPage = await (await fetch(`${base}/transactions/${ids}?${STUDIO_QUERY}`, { headers: { authorization: `Bearer ${token}` } })).text();
    const earliest = JSON.parse(firstPage.trim().split('\n').at(-1)!).id as string;
    const second = await latency(`${base}/transactions/${ids}?${STUDIO_QUERY}&toTransaction=${earliest}`, token);
    const bare = await latency(`${base}/transactions/${ids}?excludeContent=true&excludeMutations=true&includeIdentifiedDocumentsOnly=true&reverse=true&limit=50`, token);
    const revision = await latency(`${base}/documents/${ids}?revision=${earliest}`, token);
    const uncached = await inProcess(app, project.id);
    const load16 = await loadTest({ url: `${base}/transactions/${ids}?${STUDIO_QUERY}`, headers: { authorization: `Bearer ${token}` } }, LOAD_SECONDS);
    const row = (name: string, r: { p50: number; p95: number; bytes: number; lines: number }) => [
      `${engine}: ${name}`,
      r.p50.toFixed(2),
      r.p95.toFixed(2),
      r.lines,
      `${(r.bytes / 1024).toFixed(1)} KB`,
    ];
    return [
      row("Studio's request, effects computed (first open)", uncached),
      row("Studio's request (50 newest, effects)", first),
      row('the next 50 (toTransaction)', second),
      row('50 newest without effects', bare),
      row('documents at a revision', revision),
      [`${engine}: Studio's request, 16 connections`, `${Math.round(load16.rps)}/s`, `p99 ${load16.p99}`, '', ''],
    ];
  } finally {
    await app.close();
  }
}

export async function runHistoryBenchmark(): Promise<void> {
  console.log(`\nHistory: a post with ${TARGET_TRANSACTIONS} transactions among ${OTHERS.toLocaleString('en')} others`);
  const rows = await run('SQLite', undefined);
  const pgUrl = await benchPostgresUrl();
  if (pgUrl) rows.push(...(await run('PostgreSQL', pgUrl)));
  printTable('GET /data/history/:dataset/transactions/<id>,drafts.<id> (ms, one request at a time; through HTTP but the first row)', ['request', 'p50 ms', 'p95 ms', 'lines', 'body'], rows);
}

if (import.meta.url === `file://${process.argv[1]}`) await runHistoryBenchmark();
