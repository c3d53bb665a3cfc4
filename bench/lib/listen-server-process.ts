import { startTestApp } from '../../test/helpers/test-app.ts';
import { createTestDatabase } from '../../test/helpers/engine.ts';

// The server of the listener benchmark, in a process of its own: its memory is measured without
// the clients', and the 1,000 client sockets do not share its event loop. Run with --expose-gc.
// Argument: a PostgreSQL URL, or nothing for SQLite. Prints {url, token, project} once ready;
// answers the IPC message "memory" with its memory after a full collection; stops on "stop".
const pgUrl = process.argv[2] || undefined;
// One token stands in for a thousand clients: its rate and open-listener limits are lifted.
const app = await startTestApp({ RATE_LIMIT_PER_MINUTE: '100000000', LISTENERS_PER_CALLER: '1000000', LOG_LEVEL: 'silent' }, { db: createTestDatabase(pgUrl), workers: true });
const token = await app.login();
await app.request('POST', '/api/v1/projects', { token, body: { name: 'Listen bench', slug: 'listen-bench' } });

function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  gc();
  gc();
}

process.on('message', async (message: unknown) => {
  if (message === 'memory') {
    collect();
    const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
    process.send?.({ rss, heapUsed, external, arrayBuffers, connections: app.services.realtime.connections, listeners: app.services.realtime.registry.size });
  } else if (message === 'stop') {
    await app.close();
    process.exit(0);
  }
});
process.send?.({ url: app.url, token, project: 'listen-bench' });
