// Resident memory of `cms serve` as `npm start` runs it: a process of its own, no heap flag, the
// default settings (rate limits raised, so that the load is not refused), SQLite in a fresh
// DATA_DIR. Measured at start, after importing BENCH_MEMORY_DOCS (100,000) generated documents
// through the API, and after the query benchmark's questions through the query endpoint; the
// process's peak too. Target: under 300 MB resident at each point.
//
//   node bench/memory.ts
//   BENCH_MEMORY_DOCS=1000000 node bench/memory.ts
//   BENCH_MEMORY_NODE_OPTIONS=--max-old-space-size=160 node bench/memory.ts   # the server with other Node options
//   BENCH_MEMORY_ENV="HEAP_LIMIT_MB=0 QUERY_WORKERS=2" node bench/memory.ts      # ... or other settings
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { startServerProcess, type ServerProcess } from '../test/helpers/server-process.ts';
import { authorId, postId, writeDatasetNdjson } from './lib/dataset.ts';
import { queryCases } from './lib/query-cases.ts';
import { printTable } from './lib/report.ts';
import { checkTarget } from './lib/targets.ts';

const DOCUMENTS = Number(process.env.BENCH_MEMORY_DOCS ?? 100_000);
const DATASET = 'production';
const TARGET_MB = 300;
/** Each question of the query benchmark is asked this many times. */
const REPEAT = 3;

/** `NAME=value` pairs separated by spaces, as the server's environment. */
function settingsOf(text: string): Record<string, string> {
  return Object.fromEntries(text.split(/\s+/).filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
}

/** The process's resident set and its peak so far, in MB (Linux). */
function residentMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

async function importFile(server: ServerProcess, token: string, project: string, file: string): Promise<void> {
  const response = await request(`${server.url}/api/v1/data/import/${DATASET}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'x-project': project, 'content-type': 'application/x-ndjson' },
    body: createReadStream(file),
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  const body = (await response.body.json()) as { created?: number };
  if (body.created !== DOCUMENTS) throw new Error(`the import created ${body.created} of ${DOCUMENTS}: ${JSON.stringify(body).slice(0, 300)}`);
}

export async function runMemoryBenchmark(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'cms-bench-memory-'));
  const file = join(dir, 'dataset.ndjson');
  await writeDatasetNdjson(file, DOCUMENTS);
  const server = await startServerProcess({
    DATA_DIR: join(dir, 'data'),
    LOG_LEVEL: 'warn',
    ...(process.env.BENCH_MEMORY_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_MEMORY_NODE_OPTIONS } : {}),
    ...settingsOf(process.env.BENCH_MEMORY_ENV ?? ''),
  });
  try {
    const pid = server.child.pid!;
    const token = await server.login();
    const created = await server.request<{ slug: string; id: string }>('POST', '/api/v1/projects', { token, body: { name: 'Bench', slug: 'bench', datasets: [DATASET] } });
    if (created.status !== 201) throw new Error(`create project: ${created.status}`);
    const rows: (string | number)[][] = [];
    const note = (when: string) => {
      const { rss, peak } = residentMb(pid);
      rows.push([when, rss.toFixed(0), peak.toFixed(0)]);
      return rss;
    };
    note('started, admin signed in');
    const started = performance.now();
    await importFile(server, token, 'bench', file);
    const seconds = (performance.now() - started) / 1000;
    const afterImport = note(`after importing ${DOCUMENTS.toLocaleString('en')} documents (${Math.round(DOCUMENTS / seconds).toLocaleString('en')} docs/s)`);
    const posts = Math.floor(DOCUMENTS * 0.9);
    const cases = queryCases(created.body.id, DATASET, { post: postId(Math.floor(posts / 2)), slug: `post-${Math.floor(posts / 3)}`, author: authorId(3) });
    for (let round = 0; round < REPEAT; round++) {
      for (const c of cases) {
        const response = await server.request('POST', `/api/v1/data/query/${DATASET}`, { token, headers: { 'x-project': 'bench' }, body: { query: c.groq } });
        if (response.status !== 200) throw new Error(`${c.name}: ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`);
      }
    }
    const afterQueries = note(`after the query benchmark's ${cases.length} questions, ${REPEAT} times each`);
    printTable(`Resident memory of cms serve with npm start's defaults, SQLite, MB`, ['when', 'resident', 'peak so far'], rows);
    checkTarget(`resident memory after importing ${DOCUMENTS.toLocaleString('en')} documents`, afterImport, { atMost: TARGET_MB }, ' MB');
    checkTarget('resident memory after the query mix', afterQueries, { atMost: TARGET_MB }, ' MB');
  } finally {
    await server.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runMemoryBenchmark();
