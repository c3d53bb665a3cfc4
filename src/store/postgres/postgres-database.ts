import pg from 'pg';
import type { Database, SqlExecutor } from '../sql.ts';
import { positionalStatement } from './placeholders.ts';

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

/** Statements prepared on one connection at most: each holds its plan in the server's process. */
export const MAX_PREPARED_PER_CONNECTION = 100;
/**
 * Statements with more parameters, or with an array among them, run unnamed. They are the batches
 * (ids in an IN list or an array, rows of VALUES) whose generic plan PostgreSQL estimates blind:
 * the index writer's read of 1,000 entries rows by id went from a few ms to 300 ms once a generic
 * plan replaced the custom ones, its expansion of entries by an array of ids from a few ms to 100,
 * and a bulk load of 25,000 documents from 8 to 28 s. Without parameters (schema changes, pings)
 * a statement is not the repeated kind.
 */
export const MAX_PREPARED_PARAMETERS = 16;
const preparedOn = new WeakMap<pg.ClientBase, Set<string>>();

/**
 * Runs a statement prepared on the connection: PostgreSQL parses it once there, and after five
 * runs may keep a generic plan instead of planning each run (a window of 20 posts by date: 0.92 ->
 * 0.69 ms). A connection that holds MAX_PREPARED_PER_CONNECTION runs new texts unnamed; the pool
 * closes idle connections, and their statements with them. Statements without parameters run
 * unnamed, as simple queries.
 */
function run(client: pg.ClientBase, sql: string, params: readonly unknown[]): Promise<pg.QueryResult> {
  const { text, name } = positionalStatement(sql);
  let names = preparedOn.get(client);
  if (!names) preparedOn.set(client, (names = new Set()));
  const unnamed =
    params.length === 0 || params.length > MAX_PREPARED_PARAMETERS || params.some(Array.isArray) || (!names.has(name) && names.size >= MAX_PREPARED_PER_CONNECTION);
  if (unnamed) return client.query(text, [...params]);
  names.add(name);
  return client.query({ name, text, values: [...params] });
}

/** Lends a connection to `use`: the pool's, or a transaction's own. */
type Lend = <T>(use: (client: pg.ClientBase) => Promise<T>) => Promise<T>;

function executor(lend: Lend): SqlExecutor {
  return {
    dialect: 'postgres',
    all: async <T>(sql: string, params: readonly unknown[] = []) => (await lend((client) => run(client, sql, params))).rows as T[],
    get: async <T>(sql: string, params: readonly unknown[] = []) => (await lend((client) => run(client, sql, params))).rows[0] as T | undefined,
    run: async (sql: string, params: readonly unknown[] = []) => (await lend((client) => run(client, sql, params))).rowCount ?? 0,
    lock: async (keys: readonly string[]) => {
      for (const key of [...new Set(keys)].sort()) {
        await lend((client) => run(client, 'SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [key]));
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
  // A connection for one statement. One that failed other than by a statement's error (PostgreSQL
  // answered) is closed rather than handed out again.
  const fromPool: Lend = async (use) => {
    await ensureSchema();
    const client = await pool.connect();
    try {
      const result = await use(client);
      client.release();
      return result;
    } catch (error) {
      client.release(error instanceof pg.DatabaseError ? undefined : (error as Error));
      throw error;
    }
  };
  const base = executor(fromPool);

  return {
    ...base,
    transaction: async <T>(fn: (tx: SqlExecutor) => Promise<T>) => {
      await ensureSchema();
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(executor((use) => use(client)));
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
