import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { migrations } from '../../src/store/migrations/index.ts';
import { startCluster, type Cluster } from './cluster.ts';
import type { ServerProcess } from '../helpers/server-process.ts';
import { eventually } from '../helpers/eventually.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { openListenSocket, type ListenSocket } from '../helpers/listen.ts';
import { largeJpeg } from '../helpers/images.ts';

/**
 * Three `cms serve` processes on one PostgreSQL schema and one Redis, behind no proxy: each point
 * of shared state is checked through HTTP against different instances, then one instance is
 * killed (SIGKILL) in the middle of a write load.
 */
const AUTH_LIMIT = 20;
const WEBHOOK_EVENTS = ['document.create', 'document.update', 'document.delete', 'document.publish', 'document.unpublish', 'asset.upload', 'asset.delete'];

interface Delivered {
  event: string;
  documentId?: string;
  assetId?: string;
  deliveryId: string;
}

describe('a cluster of three instances on PostgreSQL and Redis', () => {
  let cluster: Cluster;
  let a: ServerProcess;
  let b: ServerProcess;
  let c: ServerProcess;
  let receiver: Receiver;
  let admin: string;
  const project = 'cluster';
  const sockets: ListenSocket[] = [];
  let held: ServerResponse[] | undefined;
  const answer = (response: ServerResponse) => {
    if (!response.destroyed) response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  };

  beforeAll(async () => {
    // The receiver answers a little late; while `held` is set it answers nothing, so that every
    // instance has deliveries in flight when one of them is killed.
    receiver = await startReceiver((_index, _request, response) => {
      if (held) held.push(response);
      else setTimeout(() => answer(response), 20);
    });
    cluster = await startCluster(3, {
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      SCHEDULER_INTERVAL_MS: '200',
      RATE_LIMIT_AUTH_PER_MINUTE: String(AUTH_LIMIT),
    });
    [a, b, c] = cluster.instances as [ServerProcess, ServerProcess, ServerProcess];
    admin = await a.login();
    expect((await b.request('POST', '/api/v1/projects', { token: admin, body: { name: 'Cluster', slug: project } })).status).toBe(201);
    const hook = await c.request('POST', `/api/v1/webhooks/${project}`, {
      token: admin,
      body: { name: 'everything', url: receiver.url, events: WEBHOOK_EVENTS, dataset: 'production' },
    });
    expect(hook.status).toBe(201);
  }, 90_000);

  afterAll(async () => {
    for (const socket of sockets) socket.socket.terminate();
    await cluster?.close();
    await receiver?.close();
  });

  const data = { headers: { 'x-project': project } };
  const mutate = (instance: ServerProcess, mutations: unknown[]) =>
    instance.request<{ transactionId: string }>('POST', '/api/v1/data/mutate/production', { token: admin, ...data, body: { mutations } });
  const delivered = (): Delivered[] =>
    receiver.requests.map((request) => ({ ...(JSON.parse(request.rawBody) as Delivered), deliveryId: String(request.headers['x-service-delivery']) }));

  it('applied each migration once, before the instances started, and every instance is healthy and ready', async () => {
    expect(cluster.migrated.stdout).toContain(`applied ${migrations.map((migration) => migration.version).join(', ')}`);
    const applied = await cluster.sql<{ version: number; n: string }>('SELECT version, count(*) AS n FROM schema_migrations GROUP BY version');
    expect(applied.map((row) => Number(row.n))).toEqual(migrations.map(() => 1));
    for (const instance of [a, b, c]) {
      expect(await instance.request('GET', '/api/v1/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
      expect(await instance.request('GET', '/api/v1/ready')).toMatchObject({ status: 200, body: { status: 'ready' } });
    }
  });

  it('fans real-time events out to listeners on every instance, whichever instance commits', async () => {
    const listeners = await Promise.all(
      [a, b, c].map((instance) =>
        openListenSocket(`${instance.url.replace(/^http/, 'ws')}/api/v1/data/listen/production?project=${project}`, { authorization: `Bearer ${admin}` }),
      ),
    );
    sockets.push(...listeners);
    for (const listener of listeners) await listener.subscribe({ query: '*[_type == "realtime"]', includeResult: true });
    for (const [index, writer] of [a, b, c].entries()) {
      const written = await mutate(writer, [{ create: { _id: `realtime-${index}`, _type: 'realtime', from: index } }]);
      expect(written.status).toBe(200);
      for (const listener of listeners) {
        expect(await listener.next('mutation')).toMatchObject({
          documentId: `realtime-${index}`,
          transactionId: written.body.transactionId,
          transition: 'appear',
          result: { from: index },
        });
      }
    }
    for (const listener of listeners) await listener.close();
  });

  it('lets exactly one of two concurrent refreshes with one token win, on different instances', async () => {
    for (let round = 0; round < 3; round++) {
      const login = await b.request<{ refreshToken: string }>('POST', '/api/v1/auth/login', {
        body: { email: 'admin@example.com', password: 'admin-password-1' },
      });
      expect(login.status).toBe(200);
      const { refreshToken } = login.body;
      const results = await Promise.all([a, c].map((instance) => instance.request('POST', '/api/v1/auth/refresh', { body: { refreshToken } })));
      expect(results.map((result) => result.status).sort()).toEqual([200, 401]);
    }
  });

  it('publishes each scheduled draft once, though every instance runs the scheduler', async () => {
    const ids = Array.from({ length: 6 }, (_, index) => `scheduled-${index}`);
    const at = new Date(Date.now() + 1500).toISOString();
    for (const [index, id] of ids.entries()) {
      const instance = [a, b, c][index % 3]!;
      expect((await mutate(instance, [{ create: { _id: `drafts.${id}`, _type: 'scheduled', index } }])).status).toBe(200);
      const scheduled = await instance.request('POST', `/api/v1/data/schedule/production/${id}`, { token: admin, ...data, body: { scheduledAt: at } });
      expect(scheduled.status).toBe(200);
    }
    for (const id of ids) {
      await eventually(async () => ((await c.request('GET', `/api/v1/data/doc/production/${id}`, { token: admin, ...data })).status === 200 ? true : undefined));
      expect((await a.request('GET', `/api/v1/data/doc/production/drafts.${id}`, { token: admin, ...data })).status).toBe(404);
    }
    const publishes = await cluster.sql<{ document_id: string; n: string }>(
      "SELECT document_id, count(*) AS n FROM outbox WHERE event = 'document.publish' GROUP BY document_id ORDER BY document_id",
    );
    expect(publishes).toEqual(ids.map((id) => ({ document_id: id, n: '1' })));
    await eventually(async () => (delivered().filter((entry) => entry.event === 'document.publish').length >= ids.length ? true : undefined));
    for (const id of ids) {
      const history = await b.request<{ revisions: unknown[] }>('GET', `/api/v1/data/history/production/${id}`, { token: admin, ...data });
      expect(history.body.revisions).toHaveLength(2); // created, published: once
    }
  });

  it('serves an asset uploaded on one instance from the others, which share no disk', async () => {
    const jpeg = await largeJpeg(640, 480);
    const form = new FormData();
    form.append('file', new Blob([jpeg]), 'photo.jpg');
    const uploaded = await fetch(`${a.url}/api/v1/assets/production`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'x-project': project },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const { url } = (await uploaded.json()) as { url: string };
    for (const instance of [b, c]) {
      const original = await fetch(`${instance.url}${url}`, { headers: { authorization: `Bearer ${admin}` } });
      expect(original.status).toBe(200);
      expect(createHash('sha1').update(Buffer.from(await original.arrayBuffer())).digest('hex')).toBe(createHash('sha1').update(jpeg).digest('hex'));
      const small = await fetch(`${instance.url}${url}?w=160&format=webp`, { headers: { authorization: `Bearer ${admin}` } });
      expect(small.status).toBe(200);
      expect(small.headers.get('content-type')).toBe('image/webp');
    }
  });

  it('claims each webhook delivery once: one request per delivery id, one delivery per event', async () => {
    const events = Number((await cluster.sql<{ n: string }>('SELECT count(*) AS n FROM outbox'))[0]!.n);
    await eventually(async () => (receiver.requests.length >= events ? true : undefined), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // time for a second claim to show up, if any
    const ids = delivered().map((entry) => entry.deliveryId);
    expect(ids).toHaveLength(events);
    expect(new Set(ids).size).toBe(events);
  });

  it('counts rate limits once across instances (Redis)', async () => {
    // /auth/* is limited per client address; requests go to a, b, c in turn until one is refused.
    for (let attempt = 0; ; attempt++) {
      const answers: { status: number; remaining: number; reset: string | null; retryAfter: string | null; body: unknown }[] = [];
      for (let i = 0; i < AUTH_LIMIT * 3 + 3; i++) {
        const response = await [a, b, c][i % 3]!.request('POST', '/api/v1/auth/logout', { body: { refreshToken: 'not-a-token' } });
        answers.push({
          status: response.status,
          remaining: Number(response.headers.get('x-ratelimit-remaining')),
          reset: response.headers.get('x-ratelimit-reset'),
          retryAfter: response.headers.get('retry-after'),
          body: response.body,
        });
        if (response.status === 429) break;
      }
      // A new minute may have begun in the middle: then counting starts again, once.
      if (new Set(answers.map((answer) => answer.reset)).size > 1 && attempt === 0) continue;
      const accepted = answers.filter((answer) => answer.status === 200);
      const refused = answers.at(-1)!;
      expect(refused).toMatchObject({ status: 429, body: { statusCode: 429, error: 'Too Many Requests' } });
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
      // One counter: the instances together allowed what the first answer said was left, not three times as much.
      expect(accepted).toHaveLength(answers[0]!.remaining + 1);
      expect(accepted.length).toBeLessThanOrEqual(AUTH_LIMIT);
      expect(accepted.map((answer) => answer.remaining)).toEqual(accepted.map((_, index) => answers[0]!.remaining - index));
      for (const instance of [a, b, c]) {
        expect((await instance.request('POST', '/api/v1/auth/logout', { body: { refreshToken: 'x' } })).status).toBe(429);
      }
      break;
    }
  });

  it('loses no accepted write and no event when an instance is killed under load, and the others keep serving', async () => {
    const live = [a, b, c];
    const listeners = await Promise.all(
      [b, c].map((instance) =>
        openListenSocket(`${instance.url.replace(/^http/, 'ws')}/api/v1/data/listen/production?project=${project}`, { authorization: `Bearer ${admin}` }),
      ),
    );
    sockets.push(...listeners);
    for (const listener of listeners) await listener.subscribe({ query: '*[_type == "load"]' });

    const accepted = new Map<string, { instance: ServerProcess; at: number }>();
    let failed = 0;
    let killedAt = Number.POSITIVE_INFINITY;
    const started = Date.now();
    const LOAD_MS = 5_000;
    const KILL_AFTER_MS = 2_000;
    const writer = async (index: number) => {
      let target = index % 3;
      for (let n = 0; n < 5_000 && Date.now() - started < LOAD_MS; n++) {
        const instance = live[target]!;
        const id = `load-${index}-${n}`;
        try {
          const response = await mutate(instance, [{ create: { _id: id, _type: 'load', writer: index, n } }]);
          if (response.status === 200) accepted.set(id, { instance, at: Date.now() });
          else failed++;
        } catch {
          // The instance is gone: a load balancer would send the next request elsewhere.
          failed++;
          target = (target + 1) % 3;
        }
        if (live[target] === a && Date.now() >= killedAt) target = (target + 1) % 3;
      }
    };
    held = [];
    const writers = Array.from({ length: 9 }, (_, index) => writer(index));
    await new Promise((resolve) => setTimeout(resolve, KILL_AFTER_MS));
    killedAt = Date.now();
    a.child.kill('SIGKILL');
    const killed = await a.exited;
    const unanswered = held;
    held = undefined;
    for (const response of unanswered) answer(response); // those sent by the killed instance have no one to read them
    await Promise.all(writers);
    expect(killed.code).toBeNull(); // killed by the signal, not exited

    // The survivors kept accepting writes after the kill, and still report ready.
    const afterKill = [...accepted.values()].filter((entry) => entry.at > killedAt);
    expect(afterKill.filter((entry) => entry.instance === b).length).toBeGreaterThan(0);
    expect(afterKill.filter((entry) => entry.instance === c).length).toBeGreaterThan(0);
    expect(accepted.size).toBeGreaterThan(100);
    for (const instance of [b, c]) expect((await instance.request('GET', '/api/v1/ready')).status).toBe(200);

    // Every accepted write is stored, with exactly one outbox event.
    const stored = await b.request<{ result: string[] }>('POST', '/api/v1/data/query/production', {
      token: admin,
      ...data,
      body: { query: '*[_type == "load"]._id' },
    });
    const storedIds = new Set(stored.body.result);
    const missing = [...accepted.keys()].filter((id) => !storedIds.has(id));
    expect(missing).toEqual([]);
    const outbox = await cluster.sql<{ document_id: string; n: string }>(
      "SELECT document_id, count(*) AS n FROM outbox WHERE event = 'document.create' AND document_type = 'load' GROUP BY document_id",
    );
    expect(outbox.length).toBe(storedIds.size);
    expect(outbox.every((row) => row.n === '1' && storedIds.has(row.document_id))).toBe(true);

    // Every event is delivered (the leases of the killed instance's deliveries run out and another
    // instance sends them again), each under one delivery id however often it was sent.
    await eventually(async () => {
      const [pending] = await cluster.sql<{ n: string }>("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'");
      return pending!.n === '0' ? true : undefined;
    }, 45_000);
    const seen = new Set(delivered().filter((entry) => entry.event === 'document.create').map((entry) => entry.documentId));
    expect([...storedIds].filter((id) => !seen.has(id))).toEqual([]);
    const idsOf = new Map<string, Set<string>>();
    let loadRequests = 0;
    for (const entry of delivered()) {
      if (entry.event !== 'document.create' || !entry.documentId?.startsWith('load-')) continue;
      loadRequests++;
      const ids = idsOf.get(entry.documentId) ?? new Set();
      ids.add(entry.deliveryId);
      idsOf.set(entry.documentId, ids);
    }
    expect(idsOf.size).toBe(storedIds.size);
    expect([...idsOf.values()].every((ids) => ids.size === 1)).toBe(true);
    // The killed instance had deliveries in flight: sent again after their lease, under the same ids.
    expect(loadRequests).toBeGreaterThan(idsOf.size);

    // Listeners on both surviving instances saw every stored write, including those the killed one committed.
    for (const listener of listeners) {
      await eventually(async () => {
        const seen = new Set(listener.messages.all.filter((message) => message.type === 'mutation').map((message) => message.documentId));
        return [...storedIds].every((id) => seen.has(id)) ? true : undefined;
      }, 20_000);
    }

    const summary = {
      acceptedWrites: accepted.size,
      acceptedByKilledInstance: [...accepted.values()].filter((entry) => entry.instance === a).length,
      acceptedAfterKill: afterKill.length,
      failedRequests: failed,
      storedWrites: storedIds.size,
      storedButUnanswered: storedIds.size - accepted.size,
      outboxEvents: outbox.length,
      deliveryIds: idsOf.size,
      deliveryRequests: loadRequests,
      heldAtKill: unanswered.length,
      redeliveredSameId: loadRequests - idsOf.size,
      listenerEvents: listeners.map((listener) => listener.messages.all.filter((message) => message.type === 'mutation').length),
    };
    console.log(`cluster kill test: ${JSON.stringify(summary)}`);
  }, 120_000);
});
