import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { registerSqlFunctions } from '../../src/store/sqlite/sql-functions.ts';

/**
 * The database a test runs on: SQLite in a temporary directory by default, PostgreSQL when
 * TEST_DATABASE_URL is set (each test app gets its own schema, dropped afterwards).
 */
export interface TestDatabase {
  engine: 'sqlite' | 'postgres';
  dataDir: string;
  databaseUrl: string;
  schema: string | undefined;
  drop(): Promise<void>;
}

export const testEngine: 'sqlite' | 'postgres' = process.env.TEST_DATABASE_URL ? 'postgres' : 'sqlite';

/** A fresh database: PostgreSQL when `pgUrl` is given (by default TEST_DATABASE_URL), else SQLite. */
export function createTestDatabase(pgUrl: string | undefined = process.env.TEST_DATABASE_URL): TestDatabase {
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-test-'));
  if (!pgUrl) {
    return {
      engine: 'sqlite',
      dataDir,
      databaseUrl: `sqlite:${join(dataDir, 'content.db')}`,
      schema: undefined,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  return {
    engine: 'postgres',
    dataDir,
    databaseUrl: pgUrl,
    schema,
    drop: async () => {
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs `use` on a connection of its own to a test database, beside the app's, and closes it: the
 * SQLite file itself, or a PostgreSQL client in the database's schema (a test that writes or
 * inspects rows the API would not).
 */
export async function withConnection<T>(
  db: TestDatabase,
  use: { sqlite: (connection: BetterSqlite3.Database) => T; postgres: (client: pg.Client) => Promise<T> },
): Promise<T> {
  if (db.engine === 'sqlite') {
    const connection = new BetterSqlite3(db.databaseUrl.slice('sqlite:'.length));
    // With the functions the store's SQL calls, as the store's own connections have them.
    registerSqlFunctions(connection);
    try {
      return use.sqlite(connection);
    } finally {
      connection.close();
    }
  }
  const client = new pg.Client({ connectionString: db.databaseUrl, options: `-c search_path=${db.schema}` });
  await client.connect();
  try {
    return await use.postgres(client);
  } finally {
    await client.end();
  }
}
