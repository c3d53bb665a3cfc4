// A SQLite file holding documents of project `p`, dataset `production`, with their index, and a
// second connection to it for the document index's reader: for tests of the reader itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openStore, type Store, type StoredDocument } from '../../src/store/index.ts';
import { openSqliteDatabase } from '../../src/store/sqlite/sqlite-database.ts';
import type { Database, SqlExecutor, Statement } from '../../src/store/sql.ts';

const NOW = '2026-01-01T00:00:00.000Z';

/** Documents as stored: the system attributes added. */
export function stored(documents: readonly Record<string, unknown>[]): StoredDocument[] {
  return documents.map((document) => ({ _rev: 'r', _createdAt: NOW, _updatedAt: NOW, ...document }) as StoredDocument);
}

/**
 * The documents written before the tests of the calling suite; the store that wrote them and a
 * connection of the reader's own (both valid in its tests).
 */
export function useIndexedSqlite(documents: readonly StoredDocument[]): { store(): Store; db(): Database } {
  let dir: string;
  let opened: { store: Store; db: Database } | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cms-index-'));
    const store = openStore(`sqlite:${join(dir, 'content.db')}`);
    await store.migrate();
    await store.projects.insert({ id: 'p', name: 'P', slug: 'p', datasets: ['production'], locales: null, createdAt: NOW, updatedAt: NOW });
    await store.transaction((tx) => tx.documents.putMany('p', 'production', documents));
    opened = { store, db: openSqliteDatabase(join(dir, 'content.db')) };
  });
  afterAll(async () => {
    await opened?.db.close();
    await opened?.store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const current = () => {
    if (!opened) throw new Error('the database is opened before the tests');
    return opened;
  };
  return { store: () => current().store, db: () => current().db };
}

/** The database, counting the statements sent through `method` whose text holds `marker`. */
export function countingStatements(db: Database, method: 'get' | 'all', marker: string): { executor: SqlExecutor; count(): number } {
  let count = 0;
  const matches = (sql: Statement) => (typeof sql === 'string' ? sql : sql.texts.join('?')).includes(marker);
  const executor: SqlExecutor = {
    ...db,
    [method]: async <T>(sql: Statement, params?: readonly unknown[]) => {
      if (matches(sql)) count++;
      return method === 'get' ? db.get<T>(sql, params) : db.all<T>(sql, params);
    },
  };
  return { executor, count: () => count };
}
