import pg from 'pg';
import type { Database, SqlExecutor, Statement, StatementOptions } from '../sql.ts';
import { positionalStatement, type PositionalStatement } from './placeholders.ts';
import { WriteQueue } from './write-queue.ts';
import { postgresPlannerStatistics } from './postgres-statistics.ts';
import { AppError } from '../../errors.ts';
import { asWriteConflict } from './write-conflicts.ts';

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
 * time it runs there: PostgreSQL then parses it once. Outside a transaction it runs on a lookup
 * connection, which keeps the generic plan from the first run (openPostgresDatabase); inside one,
 * PostgreSQL keeps a generic plan after five runs when that costs no more than planning each run.
 * Others run unnamed, planned for their parameters' values: a generic plan is estimated blind, and
 * for a page of a scan (`id > $5 ... LIMIT 10000`) it read the whole table and sorted it
 * (docs/decisions.md). A connection holding MAX_PREPARED_PER_CONNECTION statements runs new texts
 * unnamed; the pool closes idle connections, and their statements with them.
 */
function run(client: pg.ClientBase, sql: Statement, values: readonly unknown[], options?: StatementOptions): Promise<pg.QueryResult> {
  return runPositional(client, positionalStatement(sql, values), options);
}

function runPositional(client: pg.ClientBase, statement: PositionalStatement, options?: StatementOptions): Promise<pg.QueryResult> {
  return send(client, statement, options).catch((error: unknown) => {
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

function send(client: pg.ClientBase, statement: PositionalStatement, options?: StatementOptions): Promise<pg.QueryResult> {
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

/** Lends a connection to `use` for a statement run with `options`: a pool's, or a transaction's own. */
type Lend = <T>(use: (client: pg.ClientBase) => Promise<T>, options?: StatementOptions) => Promise<T>;

function executor(lend: Lend): SqlExecutor {
  return {
    dialect: 'postgres',
    all: async <T>(sql: Statement, params: readonly unknown[] = [], options?: StatementOptions) =>
      (await lend((client) => run(client, sql, params, options), options)).rows as T[],
    get: async <T>(sql: Statement, params: readonly unknown[] = [], options?: StatementOptions) =>
      (await lend((client) => run(client, sql, params, options), options)).rows[0] as T | undefined,
    // Writes are few texts run again and again: each is parsed and planned once per connection.
    run: async (sql: Statement, params: readonly unknown[] = []) => (await lend((client) => run(client, sql, params, WRITE))).rowCount ?? 0,
    write: async (sql: Statement, params: readonly unknown[] = []) => void (await lend((client) => run(client, sql, params, WRITE))),
    // One round trip for all the keys (an import takes hundreds): PostgreSQL evaluates a select
    // list from left to right, so the locks are taken in the sorted order listed.
    lock: async (keys: readonly string[]) => {
      const sorted = [...new Set(keys)].sort();
      if (sorted.length === 0) return;
      const list = sorted.map((_key, i) => `pg_advisory_xact_lock(hashtextextended(?, 0)) AS l${i}`).join(', ');
      await lend((client) => run(client, `SELECT ${list}`, sorted));
    },
    claimClause: ' FOR UPDATE SKIP LOCKED',
    lockClause: ' FOR UPDATE',
  };
}

const WRITE: StatementOptions = { planOnce: true };

/**
 * The statements of one transaction on its connection: INSERTs through `write` wait in a
 * WriteQueue and go out together, before any statement that could see them and before the
 * transaction ends. `failed` tells whether a statement failed (the transaction is then aborted).
 */
function transactionExecutor(client: pg.ClientBase): { tx: SqlExecutor; queue: WriteQueue; failed: () => boolean } {
  let failed = false;
  const lend: Lend = (use) =>
    use(client).catch((error: unknown) => {
      failed = true;
      throw error;
    });
  const direct = executor(lend);
  const queue = new WriteQueue((statement) => lend((connection) => runPositional(connection, statement, WRITE)));
  const tx: SqlExecutor = {
    ...direct,
    all: async <T>(sql: Statement, params?: readonly unknown[], options?: StatementOptions) => {
      await queue.beforeStatement(sql);
      return direct.all<T>(sql, params, options);
    },
    get: async <T>(sql: Statement, params?: readonly unknown[], options?: StatementOptions) => {
      await queue.beforeStatement(sql);
      return direct.get<T>(sql, params, options);
    },
    run: async (sql: Statement, params?: readonly unknown[]) => {
      await queue.beforeStatement(sql);
      return direct.run(sql, params);
    },
    write: async (sql: Statement, params: readonly unknown[] = []) => {
      if (await queue.hold(sql, params)) return;
      await queue.beforeStatement(sql);
      await direct.write(sql, params);
    },
  };
  return { tx, queue, failed: () => failed };
}

const MIGRATION_LOCK_KEY = 727_274_001;

export interface PostgresOptions {
  /** A schema to work in (created if missing); tests use one per run. */
  schema?: string;
  /** Connections for statements in general; lookups have half as many more of their own. */
  max?: number;
}

/**
 * Lookups by key (StatementOptions.planOnce) run on connections of their own, which always use
 * a prepared statement's generic plan. PostgreSQL's default keeps planning each run while the
 * generic plan's estimate exceeds the custom plans' (a lookup by slug joining the value index to
 * its document was estimated at twice the cost for a LIMIT 1), and planning that join took three
 * times as long as running it. Other statements need custom plans, so the setting cannot be the
 * whole pool's. An operator's own `options` on DATABASE_URL replace these settings.
 */
const LOOKUP_SETTINGS = '-c plan_cache_mode=force_generic_plan';
/**
 * Every connection's: no parallel workers for one statement. Each request is one of many at once,
 * and the planner's parallel costs divided a sequential scan's by the workers it would start: the
 * sum of a field over 100,000 documents ran as a parallel scan of every value row (120 to 150
 * ms) rather than reading the field's rows through the key (20 to 27 ms), and no other query of
 * the benchmark ran faster with workers (docs/decisions.md).
 */
const SESSION_SETTINGS = '-c max_parallel_workers_per_gather=0';

export function openPostgresDatabase(url: string, options: PostgresOptions = {}): Database {
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  const max = options.max ?? 10;
  const sessionSettings = [...(schema ? [`-c search_path=${schema}`] : []), SESSION_SETTINGS];
  const newPool = (size: number, settings: readonly string[]) => {
    const created = new pg.Pool({ connectionString: url, max: size, types, ...(settings.length > 0 ? { options: settings.join(' ') } : {}) });
    // An idle client that loses its connection emits here; the pool replaces it.
    created.on('error', () => undefined);
    return created;
  };
  const pool = newPool(max, sessionSettings);
  const lookupPool = newPool(Math.max(1, Math.ceil(max / 2)), [...sessionSettings, LOOKUP_SETTINGS]);
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
  const fromPool: Lend = async (use, statement) => {
    await ensureSchema();
    const client = await (statement?.planOnce ? lookupPool : pool).connect();
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
      const { tx, queue, failed } = transactionExecutor(client);
      try {
        await client.query('BEGIN');
        let result: T;
        try {
          result = await fn(tx);
        } catch (error) {
          // Refused after writes were held (a dry run, a rule): they are sent first, so that the
          // transaction fails where one of them would have. After a failed statement nothing runs.
          if (failed()) queue.discard();
          else await queue.flush();
          throw error;
        }
        await queue.flush();
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw asWriteConflict(error);
      } finally {
        client.release();
      }
    },
    migrationLockSql: `SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`,
    close: async () => {
      await Promise.all([pool.end(), lookupPool.end()]);
    },
  };
  return { ...database, plannerStatistics: postgresPlannerStatistics(database) };
}
