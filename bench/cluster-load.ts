import autocannon from 'autocannon';
import { availableParallelism } from 'node:os';
import { createTestDatabase } from '../test/helpers/engine.ts';
import { processDatabaseUrl } from '../test/helpers/cli.ts';
import { startServerProcess, type ServerProcess } from '../test/helpers/server-process.ts';
import { benchPostgresUrl, printTable, ratio } from './lib/report.ts';

/**
 * `npm run loadtest`: a mixed workload (80% reads: GROQ lookups by id and by slug, a sorted page,
 * a document read; 20% writes: patches of random documents) against one `cms serve` process, then against three on the same PostgreSQL and Redis,
 * the load generator spreading its connections over their ports (as a round-robin load balancer
 * would). Loopback only, bounded in time: LOADTEST_DURATION_S (10) per configuration after a
 * 2-second warm-up. Prints throughput, p50 and p99 of each and the scaling ratio.
 */
const DURATION_S = Number(process.env.LOADTEST_DURATION_S ?? 10);
const WARMUP_S = 2;
const CONNECTIONS = 30;
const DOCUMENTS = 1000;
const PROJECT = 'loadtest';
const REDIS_URL = process.env.LOADTEST_REDIS_URL ?? process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379/15';

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}

const randomPost = () => `post-${Math.floor(Math.random() * DOCUMENTS)}`;

/** One cycle of five requests per connection: four reads, one write. */
function workload(token: string): autocannon.Request[] {
  const headers = { authorization: `Bearer ${token}`, 'x-project': PROJECT, 'content-type': 'application/json' };
  const query = (text: string, params: () => Record<string, unknown> = () => ({})): autocannon.Request => ({
    method: 'POST',
    path: '/api/v1/data/query/production',
    headers,
    setupRequest: (request) => ({ ...request, body: JSON.stringify({ query: text, params: params() }) }),
  });
  return [
    query('*[_type == "post" && _id == $id][0]{_id, title, views}', () => ({ id: randomPost() })),
    { method: 'GET', path: '/api/v1/data/doc/production/post-0', headers, setupRequest: (request) => ({ ...request, path: `/api/v1/data/doc/production/${randomPost()}` }) },
    query('*[_type == "post" && rank >= $from] | order(rank asc) [0...10]{_id, title}', () => ({ from: Math.floor(Math.random() * (DOCUMENTS - 10)) })),
    query('*[_type == "post" && slug.current == $slug][0]{_id, title}', () => ({ slug: randomPost() })),
    {
      method: 'POST',
      path: '/api/v1/data/mutate/production',
      headers,
      setupRequest: (request) => ({
        ...request,
        body: JSON.stringify({ mutations: [{ patch: { id: randomPost(), set: { title: `Edited ${Date.now()}` }, inc: { views: 1 } } }] }),
      }),
    },
  ];
}

async function measure(urls: string[], token: string, seconds: number): Promise<Measured> {
  const result = await autocannon({
    // autocannon spreads its connections over several URLs in turn (its types only name one).
    url: (urls.length === 1 ? urls[0] : urls) as string,
    connections: CONNECTIONS,
    duration: seconds,
    requests: workload(token),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

async function seed(server: ServerProcess): Promise<string> {
  const token = await server.login();
  const created = await server.request('POST', '/api/v1/projects', { token, body: { name: 'Load test', slug: PROJECT } });
  if (created.status !== 201) throw new Error(`project: ${created.status} ${JSON.stringify(created.body)}`);
  for (let start = 0; start < DOCUMENTS; start += 250) {
    const mutations = Array.from({ length: 250 }, (_, offset) => {
      const n = start + offset;
      return { createOrReplace: { _id: `post-${n}`, _type: 'post', title: `Post ${n}`, slug: { current: `post-${n}` }, rank: n, views: 0, body: 'x'.repeat(400) } };
    });
    const response = await server.request('POST', '/api/v1/data/mutate/production', { token, headers: { 'x-project': PROJECT }, body: { mutations } });
    if (response.status !== 200) throw new Error(`seed: ${response.status} ${JSON.stringify(response.body)}`);
  }
  return token;
}

async function run(count: number, env: Record<string, string>, seedFirst: boolean): Promise<{ measured: Measured; token: string }> {
  const instances: ServerProcess[] = [];
  try {
    for (let i = 0; i < count; i++) instances.push(await startServerProcess(env));
    const token = seedFirst ? await seed(instances[0]!) : await instances[0]!.login();
    const urls = instances.map((instance) => instance.url);
    await measure(urls, token, WARMUP_S);
    return { measured: await measure(urls, token, DURATION_S), token };
  } finally {
    for (const instance of instances) {
      instance.child.kill('SIGTERM');
      await instance.exited;
    }
  }
}

const pgUrl = await benchPostgresUrl();
if (!pgUrl) throw new Error('the load test needs PostgreSQL (BENCH_DATABASE_URL, default the local server)');
const db = createTestDatabase(pgUrl);
try {
  const env = {
    DATA_DIR: db.dataDir,
    DATABASE_URL: await processDatabaseUrl(db),
    REDIS_URL,
    REDIS_KEY_PREFIX: `loadtest-${process.pid}:`,
    RATE_LIMIT_PER_MINUTE: '1000000000',
    LOG_LEVEL: 'warn',
  };
  console.log(`Load test: ${CONNECTIONS} connections, ${DURATION_S} s each after a ${WARMUP_S} s warm-up; 80% reads, 20% writes; ${DOCUMENTS} documents; PostgreSQL + Redis; ${availableParallelism()} cores shared by the servers, PostgreSQL, Redis and the load generator.`);
  const one = (await run(1, env, true)).measured;
  const three = (await run(3, env, false)).measured;
  const row = (name: string, m: Measured) => [name, Math.round(m.rps), `${m.p50} ms`, `${m.p99} ms`, m.requests, m.errors];
  printTable('Mixed workload (cms serve processes on PostgreSQL + Redis)', ['instances', 'req/s', 'p50', 'p99', 'requests', 'errors'], [
    row('1', one),
    row('3', three),
  ]);
  console.log(`\nscaling 1 -> 3 instances: throughput ${ratio(three.rps, one.rps)}, p99 ${ratio(three.p99, one.p99)}`);
  if (one.errors + three.errors > 0) process.exitCode = 1;
} finally {
  await db.drop();
}
