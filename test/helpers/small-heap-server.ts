import { expect } from 'vitest';
import { withConnection, type TestDatabase } from './engine.ts';
import { startServerProcess, type ServerProcess } from './server-process.ts';

/**
 * A `cms serve` process with a 128 MB heap, logged in as the admin: for tests of what large
 * content makes the server hold. `databaseUrl` is `db`'s as a process reaches it (processDatabaseUrl).
 */
export interface SmallHeapServer {
  server: ServerProcess;
  token: string;
}

const settings = (db: TestDatabase, databaseUrl: string) => ({ DATA_DIR: db.dataDir, DATABASE_URL: databaseUrl, HEAP_LIMIT_MB: '128' });

/** Starts one on `db`, with `project` created. */
export async function startSmallHeapServer(db: TestDatabase, databaseUrl: string, project: { name: string; slug: string }): Promise<SmallHeapServer> {
  const server = await startServerProcess(settings(db, databaseUrl));
  const token = await server.login();
  expect((await server.request('POST', '/api/v1/projects', { token, body: project })).status).toBe(201);
  return { server, token };
}

/**
 * Stops `server`, marks the document index out of date (as an upgrade that changes it does), and
 * starts one again on the same database: it rebuilds the index before it serves.
 */
export async function restartWithStaleIndex(server: ServerProcess, db: TestDatabase, databaseUrl: string): Promise<SmallHeapServer> {
  await server.kill();
  const stale = "UPDATE document_index_state SET value = '0' WHERE name = 'version'";
  await withConnection(db, { sqlite: (connection) => void connection.prepare(stale).run(), postgres: async (client) => void (await client.query(stale)) });
  const restarted = await startServerProcess(settings(db, databaseUrl), { startTimeoutMs: 120_000 });
  return { server: restarted, token: await restarted.login() };
}

/** The server still answers its health check. */
export async function expectServing(server: ServerProcess): Promise<void> {
  expect((await server.request('GET', '/api/v1/health')).status).toBe(200);
}
