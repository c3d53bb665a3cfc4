import BetterSqlite3 from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database, SqlExecutor, Statement } from '../sql.ts';
import { compileSql, Sql } from '../sql-fragment.ts';
import { sqliteDialect } from '../dialects/sqlite.ts';
import { SerialQueue } from './serial-queue.ts';
import { announceSqliteCommit } from './commit-signal.ts';
import { GroupCommit } from './group-commit.ts';
import { WalCheckpointer } from './wal-checkpointer.ts';
import { withParameterExpressions } from './parameter-expressions.ts';
import { registerSqlFunctions } from './sql-functions.ts';

type Connection = BetterSqlite3.Database;

function executor(conn: Connection): SqlExecutor {
  // Preparing is a large part of a small statement's cost: keep each statement once per connection.
  const statements = new Map<string, BetterSqlite3.Statement>();
  const prepare = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) {
      // Statements built with a variable number of placeholders must not grow the cache forever.
      if (statements.size >= 1000) statements.clear();
      statement = conn.prepare(withParameterExpressions(sql));
      statements.set(sql, statement);
    }
    return statement;
  };
  const bound = (sql: Statement, params: readonly unknown[]) => {
    if (!(sql instanceof Sql)) return { statement: prepare(sql), params };
    const compiled = compileSql(sql, sqliteDialect.placeholder);
    return { statement: prepare(compiled.text), params: compiled.params };
  };
  const run = async (sql: Statement, params: readonly unknown[] = []) => {
    const call = bound(sql, params);
    return call.statement.run(...call.params).changes;
  };
  return {
    dialect: 'sqlite',
    all: async <T>(sql: Statement, params: readonly unknown[] = []) => {
      const call = bound(sql, params);
      return call.statement.all(...call.params) as T[];
    },
    get: async <T>(sql: Statement, params: readonly unknown[] = []) => {
      const call = bound(sql, params);
      return call.statement.get(...call.params) as T | undefined;
    },
    run,
    write: async (sql: Statement, params?: readonly unknown[]) => void (await run(sql, params)),
    // One writer at a time already: nothing else can hold or wait for a lock.
    lock: async () => undefined,
    claimClause: '',
    lockClause: '',
  };
}

/** How large the WAL may grow between checkpoints before writes wait for one; also the size it is cut back to. */
const WAL_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Each connection's page cache. The operating system caches the file as well. A large reader cache
 * kept pages of scans read once (a server after a query mix held 20 to 40 MB more with 32 MB); a
 * 32 MB writer cache made neither imports nor writes faster than 8 MB, and left malloc's heap 50
 * to 70 MB larger after an import and a query mix.
 */
const PAGE_CACHE_KB = 8_000;

/** A connection with the service's settings (bench/ bulk-loads through one, to compare like with like). */
export function openSqliteConnection(file: string, readonly: boolean, walLimitBytes = WAL_LIMIT_BYTES): Connection {
  const conn = new BetterSqlite3(file, { readonly });
  conn.pragma('busy_timeout = 5000');
  registerSqlFunctions(conn);
  if (!readonly) {
    conn.pragma('journal_mode = WAL');
    // FULL: a commit is on disk (the WAL synced) before it is answered, so an answered write
    // survives a power loss or an OS crash, not only a killed process as with NORMAL. Group commit
    // shares each sync among the transactions committed together.
    conn.pragma('synchronous = FULL');
    conn.pragma('foreign_keys = ON');
    conn.pragma(`cache_size = -${PAGE_CACHE_KB}`);
    // Once checkpointed, a WAL that a large transaction grew is cut back to the limit, not kept at its peak.
    conn.pragma(`journal_size_limit = ${walLimitBytes}`);
  }
  return conn;
}

// better-sqlite3 blocks the thread while it waits for a lock, so two connections of one process
// must never wait on each other: every store opened on the same file shares one write queue.
const queues = new Map<string, { queue: SerialQueue; users: number }>();

function acquireWriteQueue(file: string): SerialQueue {
  if (file === ':memory:') return new SerialQueue();
  const shared = queues.get(file) ?? { queue: new SerialQueue(), users: 0 };
  shared.users += 1;
  queues.set(file, shared);
  return shared.queue;
}

function releaseWriteQueue(file: string): void {
  const shared = queues.get(file);
  if (shared && --shared.users === 0) queues.delete(file);
}

/**
 * SQLite through better-sqlite3 in WAL mode. better-sqlite3 is synchronous, but our transactions
 * are async functions; so every write goes through one writer connection, one transaction or
 * statement at a time (a queue), while plain reads use a second connection that WAL keeps
 * isolated from the writer's uncommitted changes. Transactions that wait together commit together
 * (group-commit.ts).
 */
export interface SqliteOptions {
  /** The WAL's size limit (tests use a small one). */
  walLimitBytes?: number;
  /** One read-only connection and no writer (query workers: they only read, beside the server's writer). */
  readOnly?: boolean;
}

function openReadOnly(file: string): Database {
  const connection = new BetterSqlite3(file, { readonly: true });
  connection.pragma('busy_timeout = 5000');
  registerSqlFunctions(connection);
  const read = executor(connection);
  const refuse = async (): Promise<never> => {
    throw new Error('BUG: a write on a read-only store');
  };
  return {
    ...read,
    run: refuse,
    write: refuse,
    transaction: refuse,
    migrationLockSql: undefined,
    close: async () => {
      connection.close();
    },
  };
}

export function openSqliteDatabase(file: string, options: SqliteOptions = {}): Database {
  if (options.readOnly) return openReadOnly(file);
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const walLimitBytes = options.walLimitBytes ?? WAL_LIMIT_BYTES;
  const writer = openSqliteConnection(file, false, walLimitBytes);
  // A reader on a separate connection only works for files; ':memory:' would be a different database.
  const reader = file === ':memory:' ? writer : openSqliteConnection(file, false, walLimitBytes);
  const writes = acquireWriteQueue(file);
  const write = executor(writer);
  const read = executor(reader);
  // ':memory:' has no WAL.
  const checkpointer =
    file === ':memory:'
      ? undefined
      : new WalCheckpointer(file, writer, walLimitBytes, (error) =>
          process.emitWarning(`the SQLite checkpoint thread stopped (${String(error)}); commits checkpoint again`),
        );
  const grouped = new GroupCommit(writer, writes, write, {
    beforeBegin: () => checkpointer?.beforeWrite(),
    committed: () => {
      announceSqliteCommit(file);
      checkpointer?.committed();
    },
  });

  const run = async (sql: Statement, params?: readonly unknown[]) => {
    const changes = await writes.run(async () => {
      await checkpointer?.beforeWrite();
      return write.run(sql, params);
    });
    checkpointer?.committed();
    return changes;
  };
  return {
    dialect: 'sqlite',
    all: read.all,
    get: read.get,
    run,
    write: async (sql, params) => void (await run(sql, params)),
    lock: read.lock,
    claimClause: read.claimClause,
    lockClause: read.lockClause,
    transaction: (fn) => grouped.transaction(fn),
    // BEGIN IMMEDIATE takes SQLite's write lock: the migration transaction is already exclusive.
    migrationLockSql: undefined,
    close: async () => {
      await grouped.idle();
      await writes.idle();
      await checkpointer?.close();
      if (reader !== writer) reader.close();
      writer.close();
      releaseWriteQueue(file);
    },
  };
}
