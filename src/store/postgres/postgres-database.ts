import pg from 'pg';
import type { Database, SqlExecutor } from '../sql.ts';
import { toPositionalParams } from './placeholders.ts';

const TIMESTAMPTZ_OID = 1184;
const INT8_OID = 20;

// Timestamps leave the store as ISO 8601 strings on both engines; counts as numbers.
const types = {
  getTypeParser(oid: number, format?: string) {
    if (oid === TIMESTAMPTZ_OID) return (value: string) => new Date(value).toISOString();
    if (oid === INT8_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

interface Queryable {
  query(sql: string, params?: unknown[]): Promise<pg.QueryResult>;
}

function executor(client: Queryable): SqlExecutor {
  return {
    dialect: 'postgres',
    all: async <T>(sql: string, params: readonly unknown[] = []) =>
      (await client.query(toPositionalParams(sql), [...params])).rows as T[],
    get: async <T>(sql: string, params: readonly unknown[] = []) =>
      (await client.query(toPositionalParams(sql), [...params])).rows[0] as T | undefined,
    run: async (sql: string, params: readonly unknown[] = []) =>
      (await client.query(toPositionalParams(sql), [...params])).rowCount ?? 0,
    lock: async (keys: readonly string[]) => {
      for (const key of [...new Set(keys)].sort()) {
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
      }
    },
    claimClause: ' FOR UPDATE SKIP LOCKED',
    lockClause: ' FOR UPDATE',
  };
}

const MIGRATION_LOCK_KEY = 727_274_001;

export interface PostgresOptions {
  /** A schema to work in (created if missing); tests use one per run. */
  schema?: string;
  max?: number;
}

export function openPostgresDatabase(url: string, options: PostgresOptions = {}): Database {
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    types,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle client that loses its connection emits here; the pool replaces it.
  pool.on('error', () => undefined);
  let ready: Promise<unknown> | undefined;
  // Concurrent CREATE SCHEMA IF NOT EXISTS can still collide on the catalog's unique index.
  const ensureSchema = () =>
    (ready ??= schema
      ? pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`).catch((error: { code?: string }) => {
          if (error.code !== '23505') throw error;
        })
      : Promise.resolve());
  const base = executor({ query: async (sql, params) => (await ensureSchema(), pool.query(sql, params)) });

  return {
    ...base,
    transaction: async <T>(fn: (tx: SqlExecutor) => Promise<T>) => {
      await ensureSchema();
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(executor(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    migrationLockSql: `SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`,
    close: () => pool.end(),
  };
}
