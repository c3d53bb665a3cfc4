import { openSqliteDatabase } from './sqlite/sqlite-database.ts';
import { openPostgresDatabase } from './postgres/postgres-database.ts';
import { createStoreOn, type Store } from './store.ts';

export type { PlannerReads, Store, Repositories } from './store.ts';
export { StoreDocumentSource, type DocumentLimit, type SourceOptions } from './document-index/source/store-document-source.ts';
export { answerJson } from './document-index/source/read-text.ts';
export type * from './records.ts';

export interface StoreOptions {
  /** PostgreSQL only: the schema to use (tests create one per run). */
  schema?: string;
}

/** A store that only reads, beside the server's own: for query workers (a few connections, no writer). */
export interface ReaderOptions extends StoreOptions {
  readOnly: true;
}

/** Opens the store that DATABASE_URL names: `sqlite:<file>` or `postgres://...`. */
export function openStore(databaseUrl: string, options: StoreOptions | ReaderOptions = {}): Store {
  const readOnly = 'readOnly' in options && options.readOnly;
  if (databaseUrl.startsWith('sqlite:')) return createStoreOn(openSqliteDatabase(databaseUrl.slice('sqlite:'.length), { readOnly }));
  return createStoreOn(openPostgresDatabase(databaseUrl, { schema: options.schema, ...(readOnly ? { max: 2 } : {}) }));
}

/** A URL safe to print: the password of a PostgreSQL URL is masked. */
export function describeDatabaseUrl(databaseUrl: string): string {
  if (databaseUrl.startsWith('sqlite:')) return databaseUrl;
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return 'postgres://(unparseable url)';
  }
}
