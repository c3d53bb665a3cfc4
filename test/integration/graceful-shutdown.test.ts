import { connect } from 'node:net';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, testEngine } from '../helpers/engine.ts';
import { processDatabaseUrl } from '../helpers/cli.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { eventually } from '../helpers/eventually.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startTestApp } from '../helpers/test-app.ts';

/** True when a new TCP connection to the port is refused (the server no longer accepts). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/** An NDJSON import whose body keeps arriving until `finish()`: a request in flight for as long as we like. */
function slowImport(server: ServerProcess, token: string, project: string) {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      c.enqueue(encoder.encode(`${JSON.stringify({ _id: 'imported-1', _type: 'imported' })}\n`));
    },
  });
  const response = fetch(`${server.url}/api/v1/data/import/production`, {
    method: 'POST',
    body,
    duplex: 'half',
    headers: { authorization: `Bearer ${token}`, 'x-project': project, 'content-type': 'application/x-ndjson' },
  } as RequestInit);
  return {
    response,
    finish() {
      controller.enqueue(encoder.encode(`${JSON.stringify({ _id: 'imported-2', _type: 'imported' })}\n`));
      controller.close();
    },
  };
}

describe(`graceful shutdown of cms serve (${testEngine})`, () => {
  it('on SIGTERM: not ready at once, serving through SHUTDOWN_DELAY_MS, then no new connections, the request and webhook attempt under way finish and are recorded, exit 0', async () => {
    const db = createTestDatabase();
    let held: ServerResponse | undefined;
    const receiver = await startReceiver((_index, _request, response) => {
      held = response; // answered by the test, while the server is shutting down
    });
    const server = await startServerProcess({
      DATA_DIR: db.dataDir,
      DATABASE_URL: await processDatabaseUrl(db),
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      SHUTDOWN_DELAY_MS: '2000',
    });
    try {
      const admin = await server.login();
      const auth = { token: admin, headers: { 'x-project': 'shutdown' } };
      expect((await server.request('POST', '/api/v1/projects', { token: admin, body: { name: 'Shutdown', slug: 'shutdown' } })).status).toBe(201);
      const mutate = (mutations: unknown[]) => server.request('POST', '/api/v1/data/mutate/production', { ...auth, body: { mutations } });
      expect((await mutate([{ create: { _id: 'doc', _type: 'page', n: 0 } }])).status).toBe(200);
      const hook = await server.request<{ id: string }>('POST', '/api/v1/webhooks/shutdown', {
        token: admin,
        body: { name: 'updates', url: receiver.url, events: ['document.update'], dataset: 'production' },
      });
      expect(hook.status).toBe(201);
      expect(await server.request('GET', '/api/v1/ready')).toMatchObject({ status: 200, body: { status: 'ready', checks: { database: 'ok' } } });

      // A webhook attempt in flight (the receiver holds it) and a request in flight (its body is still coming).
      expect((await mutate([{ patch: { id: 'doc', inc: { n: 1 } } }])).status).toBe(200);
      await receiver.waitFor(1);
      const importing = slowImport(server, admin, 'shutdown');
      await new Promise((resolve) => setTimeout(resolve, 200));

      server.child.kill('SIGTERM');
      const draining = await eventually(async () => {
        const ready = await server.request<{ status: string }>('GET', '/api/v1/ready');
        return ready.status === 503 ? ready : undefined;
      });
      expect(draining.body).toMatchObject({ status: 'draining', checks: { database: 'ok' } });
      // Still serving while the load balancer takes it out.
      expect((await server.request('GET', '/api/v1/health')).status).toBe(200);
      expect((await server.request('GET', '/api/v1/data/doc/production/doc', auth)).status).toBe(200);

      // After the delay it stops accepting connections, but keeps going: the import is not done.
      await eventually(async () => ((await refused(server.port)) ? true : undefined), 10_000);
      expect(server.child.exitCode).toBeNull();
      importing.finish();
      const imported = await importing.response;
      expect(imported.status).toBe(200);
      expect(await imported.json()).toMatchObject({ total: 2, created: 2, errors: [] });

      // It waits for the webhook attempt under way before it exits.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(server.child.exitCode).toBeNull();
      held!.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      expect((await server.exited).code).toBe(0);
    } finally {
      await server.kill();
    }

    // The attempt was recorded before the exit: a new instance shows it succeeded and sends nothing again.
    const next = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, { db, workers: true });
    try {
      const admin = await next.login();
      const deliveries = await next.request<{ status: string; attempts: number; status_code: number }[]>(
        'GET',
        `/api/v1/webhooks/shutdown/${(await next.request<{ id: string }[]>('GET', '/api/v1/webhooks/shutdown', { token: admin })).body[0]!.id}/deliveries`,
        { token: admin },
      );
      expect(deliveries.body).toHaveLength(1);
      expect(deliveries.body[0]).toMatchObject({ status: 'succeeded', attempts: 1, status_code: 200 });
      expect((await next.request('GET', '/api/v1/data/doc/production/imported-2', { token: admin, headers: { 'x-project': 'shutdown' } })).status).toBe(200);
      await next.services.webhookWorker.settled();
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await receiver.close();
      await next.close();
    }
  }, 60_000);

  it('exits 1 when work under way outlasts SHUTDOWN_TIMEOUT_MS', async () => {
    const db = createTestDatabase();
    const server = await startServerProcess({ DATA_DIR: db.dataDir, DATABASE_URL: await processDatabaseUrl(db), SHUTDOWN_TIMEOUT_MS: '1000' });
    try {
      const admin = await server.login();
      expect((await server.request('POST', '/api/v1/projects', { token: admin, body: { name: 'Hung', slug: 'hung' } })).status).toBe(201);
      const hung = slowImport(server, admin, 'hung'); // never finished
      hung.response.catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 200));
      server.child.kill('SIGTERM');
      const run = await server.exited;
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('longer than SHUTDOWN_TIMEOUT_MS');
    } finally {
      await server.kill();
      await db.drop();
    }
  }, 30_000);
});
