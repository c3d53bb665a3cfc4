/**
 * The minimal SQL surface the repositories are written against. Repositories use `?` placeholders
 * and SQL that both engines accept; each adapter translates what differs (placeholders, types).
 */
export type Dialect = 'sqlite' | 'postgres';

export interface SqlExecutor {
  readonly dialect: Dialect;
  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  get<T>(sql: string, params?: readonly unknown[]): Promise<T | undefined>;
  /** Runs a statement and resolves to the number of rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
}

export interface Database extends SqlExecutor {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Executes a script of several statements (migrations). */
  exec(script: string): Promise<void>;
  /** Runs `fn` while holding a lock that other processes migrating the same database wait for. */
  withMigrationLock<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** JSON columns come back parsed from PostgreSQL (jsonb) and as text from SQLite. */
export function jsonColumn<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** Boolean columns are integers in SQLite. */
export function boolColumn(value: unknown): boolean {
  return value === true || value === 1;
}
