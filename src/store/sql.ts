import { sqlDialect } from './dialects/dialect.ts';
import type { PlannerStatisticsEngine } from './planner-statistics.ts';
import type { Sql } from './sql-fragment.ts';

/**
 * The minimal SQL surface the repositories are written against. A statement is either portable
 * text (SQL both engines accept, with `?` placeholders, its parameters beside it: a repository's
 * constant statements) or a fragment built at run time (sql-fragment.ts), which holds its
 * parameters and is compiled for the engine; what else differs lives in dialects/.
 */
export type Dialect = 'sqlite' | 'postgres';

export type Statement = string | Sql;

export interface StatementOptions {
  /**
   * The statement finds a few rows by key, and its best plan does not depend on its parameters'
   * values: the database may plan it once and keep the plan (PostgreSQL: a prepared statement on
   * the connection, with a generic plan once that costs no more than planning each run).
   */
  planOnce?: boolean;
}

export interface SqlExecutor {
  readonly dialect: Dialect;
  /** `params` go with portable text only: a fragment holds its own. */
  all<T>(sql: Statement, params?: readonly unknown[], options?: StatementOptions): Promise<T[]>;
  get<T>(sql: Statement, params?: readonly unknown[], options?: StatementOptions): Promise<T | undefined>;
  /** Runs a statement and resolves to the number of rows it changed. */
  run(sql: Statement, params?: readonly unknown[]): Promise<number>;
  /**
   * Runs a write whose count of changed rows the caller does not need. An INSERT inside a
   * PostgreSQL transaction may be sent later, joined with the writes after it into one statement
   * (postgres/write-queue.ts), but always before a statement that reads its table and before the
   * transaction ends; if it fails, that statement fails, and so the transaction.
   */
  write(sql: Statement, params?: readonly unknown[]): Promise<void>;
  /**
   * Inside a transaction: waits for, then holds until commit, a lock on each key, so transactions
   * touching the same keys run one after the other. A no-op where writes are already serialized
   * (SQLite). Keys are locked in sorted order, so two transactions cannot deadlock on them.
   */
  lock(keys: readonly string[]): Promise<void>;
  /** Appended to a SELECT that claims rows: `FOR UPDATE SKIP LOCKED` where the engine has it. */
  readonly claimClause: string;
  /** Appended to a SELECT whose rows must stay locked until commit: `FOR UPDATE` where the engine has it. */
  readonly lockClause: string;
}

/** Statements sent, counted for a caller that reports them (EXPLAIN output). */
export interface StatementCounter {
  statements: number;
}

/** `db`, counting in `counter` every statement sent through it. */
export function countingStatements(db: SqlExecutor, counter: StatementCounter): SqlExecutor {
  return {
    dialect: db.dialect,
    claimClause: db.claimClause,
    lockClause: db.lockClause,
    lock: (keys) => db.lock(keys),
    all: (sql, params, options) => {
      counter.statements++;
      return db.all(sql, params, options);
    },
    get: (sql, params, options) => {
      counter.statements++;
      return db.get(sql, params, options);
    },
    run: (sql, params) => {
      counter.statements++;
      return db.run(sql, params);
    },
    write: (sql, params) => {
      counter.statements++;
      return db.write(sql, params);
    },
  };
}

export interface Database extends SqlExecutor {
  /**
   * Keeps the query planner's statistics current after bulk writes (PostgreSQL: ANALYZE); absent
   * where plans do not depend on them (SQLite: measured, docs/decisions.md).
   */
  readonly plannerStatistics?: PlannerStatisticsEngine;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * A statement that, run first in a transaction, makes other processes' migrations wait until it
   * commits; undefined where beginning a write transaction already does (SQLite).
   */
  readonly migrationLockSql: string | undefined;
  close(): Promise<void>;
}

// Binary JSON columns, for repositories that hold the dialect's name (see SqlDialect).
export const binaryJsonParam = (dialect: Dialect): string => sqlDialect(dialect).binaryJsonParam;
export const binaryJsonColumn = (dialect: Dialect, column: string): string => sqlDialect(dialect).binaryJsonColumn(column);
export const binaryJsonText = (dialect: Dialect, column: string): string => sqlDialect(dialect).binaryJsonText(column);

/** JSON columns come back parsed from PostgreSQL (jsonb) and as text from SQLite. */
export function jsonColumn<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** Boolean columns are integers in SQLite. */
export function boolColumn(value: unknown): boolean {
  return value === true || value === 1;
}
