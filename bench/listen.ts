import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { benchPostgresUrl, printTable } from './lib/report.ts';

/**
 * Real-time listeners: 1,000 WebSocket listeners on one instance (a server process of its own)
 * receive a steady stream of mutations. Delivery latency runs from just before the mutation's HTTP
 * request to the event's arrival at a listener, for every listener; beside it, the same stream to
 * a single listener. Memory per connection is the server's growth (after a full collection) from
 * no connection to 1,000 subscribed ones.
 */
const LISTENERS = Number(process.env.BENCH_LISTENERS ?? 1000);
const MUTATIONS = Number(process.env.BENCH_LISTEN_MUTATIONS ?? 200);
/** Mutations per second: each becomes LISTENERS events. */
const RATE = Number(process.env.BENCH_LISTEN_RATE ?? 20);
const BODY_TEXT = 'A paragraph of a benchmark post. '.repeat(12);
const DOCUMENT_ID = /"documentId":"([^"]+)"/;

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
  connections: number;
  listeners: number;
}

interface Server {
  url: string;
  token: string;
  project: string;
  memory(): Promise<Memory>;
  stop(): Promise<void>;
}

function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message as T));
    child.once('exit', (code) => reject(new Error(`the benchmark server exited with ${code}`)));
  });
}

async function startServer(pgUrl: string | undefined): Promise<Server> {
  const script = fileURLToPath(new URL('./lib/listen-server-process.ts', import.meta.url));
  const child = fork(script, pgUrl ? [pgUrl] : [], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await nextMessage<{ url: string; token: string; project: string }>(child);
  return {
    ...ready,
    memory: async () => {
      const reply = nextMessage<Memory>(child);
      child.send('memory');
      return reply;
    },
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send('stop');
      await exited;
    },
  };
}

/** Where each mutation was sent and when each listener got it. */
class Deliveries {
  readonly sentAt = new Map<string, number>();
  readonly latencies: number[] = [];

  received(text: string): void {
    const at = performance.now();
    const id = DOCUMENT_ID.exec(text)?.[1];
    const sent = id === undefined ? undefined : this.sentAt.get(id);
    if (sent !== undefined) this.latencies.push(at - sent);
  }
}

async function connect(server: Server, deliveries: Deliveries): Promise<WebSocket> {
  const url = `${server.url.replace(/^http/, 'ws')}/api/v1/data/listen/production?project=${server.project}`;
  const socket = new WebSocket(url, { headers: { authorization: `Bearer ${server.token}` }, perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const welcome = new Promise((resolve) => socket.once('message', resolve));
  socket.send(JSON.stringify({ type: 'subscribe', query: '*[_type == "benchPost"]', includeResult: true }));
  await welcome;
  socket.on('message', (data) => deliveries.received(String(data)));
  return socket;
}

async function connectMany(server: Server, count: number, deliveries: Deliveries): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  // A hundred handshakes at a time: enough to be quick, few enough not to hit the accept backlog.
  for (let start = 0; start < count; start += 100) {
    sockets.push(...(await Promise.all(Array.from({ length: Math.min(100, count - start) }, () => connect(server, deliveries)))));
  }
  return sockets;
}

/** Sends `count` single-document mutations at RATE per second; resolves once every listener got every one. */
async function stream(server: Server, deliveries: Deliveries, prefix: string, count: number, listeners: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const wait = started + (i * 1000) / RATE - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const id = `${prefix}-${i}`;
    deliveries.sentAt.set(id, performance.now());
    const response = await fetch(`${server.url}/api/v1/data/mutate/production`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}`, 'x-project': server.project },
      body: JSON.stringify({ mutations: [{ create: { _id: id, _type: 'benchPost', title: `Post ${i}`, body: BODY_TEXT } }] }),
    });
    if (response.status !== 200) throw new Error(`mutation failed: ${response.status} ${await response.text()}`);
  }
  const expected = count * listeners;
  const deadline = Date.now() + 120_000;
  while (deliveries.latencies.length < expected) {
    if (Date.now() > deadline) throw new Error(`only ${deliveries.latencies.length} of ${expected} events arrived`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return (performance.now() - started) / 1000;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

interface Result {
  engine: string;
  single: number[];
  many: number[];
  seconds: number;
  rssPerConnection: number;
  heapPerConnection: number;
}

async function measure(engine: string, pgUrl: string | undefined): Promise<Result> {
  const server = await startServer(pgUrl);
  try {
    const idle = await server.memory();
    const one = new Deliveries();
    const [single] = await connectMany(server, 1, one);
    await stream(server, one, 'single', Math.min(100, MUTATIONS), 1);
    single!.close();

    const many = new Deliveries();
    const sockets = await connectMany(server, LISTENERS, many);
    const loaded = await server.memory();
    if (loaded.connections < LISTENERS) throw new Error(`the server counts ${loaded.connections} connections`);
    const seconds = await stream(server, many, 'many', MUTATIONS, LISTENERS);
    for (const socket of sockets) socket.close();
    return {
      engine,
      single: one.latencies.sort((a, b) => a - b),
      many: many.latencies.sort((a, b) => a - b),
      seconds,
      rssPerConnection: (loaded.rss - idle.rss) / LISTENERS,
      heapPerConnection: (loaded.heapUsed + loaded.external - idle.heapUsed - idle.external) / LISTENERS,
    };
  } finally {
    await server.stop();
  }
}

export async function runListenBenchmark(): Promise<void> {
  console.log(`\nListeners: ${LISTENERS} WebSockets on one instance, ${MUTATIONS} mutations at ${RATE}/s (server in its own process)`);
  const results = [await measure('SQLite', undefined)];
  const pgUrl = await benchPostgresUrl();
  if (pgUrl) results.push(await measure('PostgreSQL', pgUrl));
  const ms = (value: number) => value.toFixed(1);
  printTable(
    'Delivery latency, from sending the mutation to the event at each listener',
    ['engine', 'listeners', 'events', 'p50 ms', 'p99 ms', 'max ms', 'events/s'],
    results.flatMap((r) => [
      [r.engine, 1, r.single.length, ms(percentile(r.single, 50)), ms(percentile(r.single, 99)), ms(r.single.at(-1) ?? NaN), '-'],
      [r.engine, LISTENERS, r.many.length, ms(percentile(r.many, 50)), ms(percentile(r.many, 99)), ms(r.many.at(-1) ?? NaN), Math.round(r.many.length / r.seconds)],
    ]),
  );
  printTable(
    'Server memory per open, subscribed WebSocket (after a full collection)',
    ['engine', 'RSS KiB', 'heap + external KiB'],
    results.map((r) => [r.engine, (r.rssPerConnection / 1024).toFixed(1), (r.heapPerConnection / 1024).toFixed(1)]),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await runListenBenchmark();
