import pg from 'pg';
import type { Database, SqlExecutor, Statement, StatementOptions } from '../sql.ts';
import { positionalStatement } from './placeholders.ts';
import { postgresPlannerStatistics } from './postgres-statistics.ts';
import { AppError } from '../../errors.ts';

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
 * A statement with more parameters runs unnamed: its plan is large to keep (an import's chunk of
 * 500 documents binds 4,000), and a chunk's text is seldom run again.
 */
export const MAX_PREPARED_PARAMETERS = 256;
const preparedOn = new WeakMap<pg.ClientBase, Set<string>>();

/**
 * Runs a statement. One to plan once (StatementOptions) is prepared on the connection the first
 * time it runs there: PostgreSQL then parses it once, and after five runs keeps a generic plan
 * when that costs no more than planning each run. Others run unnamed, planned for their
 * parameters' values: a generic plan is estimated blind, and for a page of a scan (`id > $5 ...
 * LIMIT 10000`) it read the whole table and sorted it (docs/decisions.md). A connection holding MAX_PREPARED_PER_CONNECTION statements runs new texts
 * unnamed; the pool closes idle connections, and their statements with them.
 */
function run(client: pg.ClientBase, sql: Statement, values: readonly unknown[], options?: StatementOptions): Promise<pg.QueryResult> {
  return send(client, sql, values, options).catch((error: unknown) => {
    throw error instanceof pg.DatabaseError && NUL_REFUSED.has(error.code ?? '') ? nulInText(error) : error;
  });
}

/**
 * PostgreSQL's text and jsonb cannot hold U+0000, which any text from a request may contain (a
 * name, a slug, a transaction id): "invalid byte sequence for encoding UTF8: 0x00" (22021) as
 * text, "unsupported Unicode escape sequence" (22P05) as JSON. Such a request is the client's
 * error, not the server's. SQLite stores the character.
 */
const NUL_REFUSED = new Set(['22021', '22P05']);
const nulInText = (cause: pg.DatabaseError) => new AppError('BAD_REQUEST', 'Text may not contain the character U+0000', {}, cause);

function send(client: pg.ClientBase, sql: Statement, values: readonly unknown[], options?: StatementOptions): Promise<pg.QueryResult> {
  const statement = positionalStatement(sql, values);
  const { text } = statement;
  const params = [...statement.params];
  // Without parameters (DDL, a migration's several statements) the simple protocol, which runs them all.
  if (!options?.planOnce || params.length === 0 || params.length > MAX_PREPARED_PARAMETERS) return client.query(text, params);
  const name = statement.name;
  let names = preparedOn.get(client);
  if (!names) preparedOn.set(client, (names = new Set()));
  if (!names.has(name) && names.size >= MAX_PREPARED_PER_CONNECTION) return client.query(text, params);
  names.add(name);
  return client.query({ name, text, values: params });
}

/** Lends a connection to `use`: the pool's, or a transaction's own. */
type Lend = <T>(use: (client: pg.ClientBase) => Promise<T>) => Promise<T>;

function executor(lend: Lend): SqlExecutor {
  return {
    dialect: 'postgres',
    all: async <T>(sql: Statement, params: readonly unknown[] = [], options?: StatementOptions) =>
      (await lend((client) => run(client, sql, params, options))).rows as T[],
    get: async <T>(sql: Statement, params: readonly unknown[] = [], options?: StatementOptions) =>
      (await lend((client) => run(client, sql, params, options))).rows[0] as T | undefined,
    // Writes are few texts run again and again: each is parsed and planned once per connection.
    run: async (sql: Statement, params: readonly unknown[] = []) => (await lend((client) => run(client, sql, params, { planOnce: true }))).rowCount ?? 0,
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

  const database: Database = {
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
  return { ...database, plannerStatistics: postgresPlannerStatistics(database) };
}
