import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/engine.ts';
import { processDatabaseUrl, run, type Run } from '../helpers/cli.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.ts';

export const CLUSTER_PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const CLUSTER_REDIS_URL = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379/15';

/**
 * A production-shaped cluster on this machine: `cms migrate` run once, then several `cms serve`
 * processes on one PostgreSQL schema and one Redis (a key prefix of their own), each with a data
 * directory of its own (no shared disk: assets live in an S3-compatible server, s3rver).
 */
export interface Cluster {
  instances: ServerProcess[];
  /** What `cms migrate` printed. */
  migrated: Run;
  db: TestDatabase;
  s3: TestS3Server;
  /** The environment every instance got (to start another one like them). */
  env: Record<string, string>;
  /** Runs SQL in the cluster's schema, for looking at what the instances wrote. */
  sql<T extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export async function startCluster(size: number, env: Record<string, string> = {}): Promise<Cluster> {
  const db = createTestDatabase(CLUSTER_PG_URL);
  const databaseUrl = await processDatabaseUrl(db);
  const s3 = await startS3Server();
  const dataDirs: string[] = [];
  const shared = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: CLUSTER_REDIS_URL,
    REDIS_KEY_PREFIX: `cluster-${randomBytes(4).toString('hex')}:`,
    ...s3.env('cms/'),
    ...env,
  };
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const instances: ServerProcess[] = [];
  const close = async () => {
    await Promise.all(instances.map((instance) => instance.kill()));
    await client.end();
    await s3.close();
    await db.drop();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const migrated = await run(['migrate'], { ...shared, DATA_DIR: db.dataDir });
    if (migrated.code !== 0) throw new Error(`cms migrate failed: ${migrated.stderr}`);
    // Started together, as an orchestrator would (each also checks the migrations under the lock).
    await Promise.all(
      Array.from({ length: size }, async () => {
        const dataDir = mkdtempSync(join(tmpdir(), 'cms-instance-'));
        dataDirs.push(dataDir);
        instances.push(await startServerProcess({ ...shared, DATA_DIR: dataDir }));
      }),
    );
    return {
      instances,
      migrated,
      db,
      s3,
      env: shared,
      sql: async (text, values) => (await client.query(text, values)).rows,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
