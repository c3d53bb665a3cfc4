import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/engine.ts';
import { launch, processDatabaseUrl, waitFor } from '../helpers/cli.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

/**
 * A server process killed (SIGKILL) in the middle of a delivery: after a restart the delivery is
 * made again, with the same delivery id (at least once, never under a new id).
 */
describe(`webhook delivery across a crash (${testEngine})`, () => {
  let db: TestDatabase | undefined;
  let receiver: Receiver | undefined;
  const servers: ReturnType<typeof launch>[] = [];

  afterEach(async () => {
    for (const server of servers.splice(0)) server.child.kill('SIGKILL');
    await receiver?.close();
    await db?.drop();
  });

  async function start(env: Record<string, string>) {
    const server = launch(['serve'], env);
    servers.push(server);
    const url = (await waitFor(server.output, /listening on (http:\/\/\S+)/))[1]!;
    return { server, url };
  }

  async function call(url: string, method: string, path: string, token: string | undefined, body?: unknown) {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-project': 'crash', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await response.json()) as Record<string, unknown>;
  }

  it('delivers after a kill and restart, under the same delivery id', async () => {
    db = createTestDatabase();
    let holding = true;
    receiver = await startReceiver(() => (holding ? 'hold' : 200));
    const env = {
      DATA_DIR: db.dataDir,
      DATABASE_URL: await processDatabaseUrl(db),
      PORT: '0',
      ADMIN_EMAIL: 'admin@example.com',
      ADMIN_PASSWORD: 'admin-password-1',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      RATE_LIMIT_AUTH_PER_MINUTE: '1000',
    };
    const first = await start(env);
    const token = (await call(first.url, 'POST', '/auth/login', undefined, { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD })).accessToken as string;
    await call(first.url, 'POST', '/projects', token, { name: 'Crash', slug: 'crash' });
    await call(first.url, 'POST', '/webhooks/crash', token, { name: 'crash', url: receiver.url, events: ['document.create'], dataset: 'production' });
    await call(first.url, 'POST', '/data/mutate/production', token, { mutations: [{ create: { _type: 'survivor' } }] });

    const [held] = await receiver.waitFor(1);
    first.server.child.kill('SIGKILL');
    await first.server.exited;

    holding = false;
    await start(env);
    const requests = await receiver.waitFor(2, 40_000);
    expect(requests[1]!.headers['x-service-delivery']).toBe(held!.headers['x-service-delivery']);
    expect(requests[1]!.rawBody).toBe(held!.rawBody);
    expect(JSON.parse(requests[1]!.rawBody)).toMatchObject({ event: 'document.create', documentType: 'survivor' });
  }, 60_000);
});
