// The planner's probes (how many documents a broad condition yields, to choose what drives a
// query) only choose the plan: the same probe within PROBE_TTL_MS is answered from memory, so a
// repeated query sends one statement fewer, with the same result. On a real SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.ts';
import { openSqliteDatabase } from '../../src/store/sqlite/sqlite-database.ts';
import { DocumentIndexReader } from '../../src/store/document-index/reader.ts';
import type { DocumentQuery } from '../../src/store/document-index/document-query.ts';
import type { Database, SqlExecutor, Statement } from '../../src/store/sql.ts';

const NOW = '2026-01-01T00:00:00.000Z';

describe('document index probes', () => {
  let dir: string;
  let store: Store;
  let db: Database;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cms-probes-'));
    store = openStore(`sqlite:${join(dir, 'content.db')}`);
    await store.migrate();
    await store.projects.insert({ id: 'p', name: 'P', slug: 'p', datasets: ['production'], locales: null, createdAt: NOW, updatedAt: NOW });
    const documents = Array.from({ length: 30 }, (_, i) => ({ _id: `post-${i}`, _type: i < 20 ? 'post' : 'page', n: i, _rev: 'r', _createdAt: NOW, _updatedAt: NOW }));
    await store.transaction((tx) => tx.documents.putMany('p', 'production', documents));
    db = openSqliteDatabase(join(dir, 'content.db'));
  });

  afterAll(async () => {
    await db.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The database, counting the probes sent to it. */
  function counting(): { executor: SqlExecutor; probes: () => number } {
    let probes = 0;
    const executor: SqlExecutor = {
      ...db,
      get: async <T>(sql: Statement, params?: readonly unknown[]) => {
        if ((typeof sql === 'string' ? sql : sql.texts.join('?')).includes('COUNT(*)')) probes++;
        return db.get<T>(sql, params);
      },
    };
    return { executor, probes: () => probes };
  }

  // A type beside a value order with a window: whether the type is small enough to drive is probed.
  const latest = (type: string): DocumentQuery => ({
    where: { kind: 'type', types: [type] },
    order: { kind: 'value', path: 'n', descending: true },
    offset: 0,
    limit: 3,
    select: { kind: 'values', paths: ['n'], type: false },
  });
  const ids = (result: Awaited<ReturnType<DocumentIndexReader['query']>>) => ('rows' in result ? result.rows.map((row) => row.id) : []);

  it('probes once per condition within the time a probe is kept, then again', async () => {
    // Not 0: lru-cache takes a start time of 0 for "no expiry".
    let clock = 1_000;
    const { executor, probes } = counting();
    const reader = new DocumentIndexReader(executor, () => clock);
    expect(ids(await reader.query('p', 'production', latest('post')))).toEqual(['post-19', 'post-18', 'post-17']);
    expect(probes()).toBe(1);
    clock += 9_000;
    expect(ids(await reader.query('p', 'production', latest('post')))).toEqual(['post-19', 'post-18', 'post-17']);
    expect(probes()).toBe(1);
    // Another condition has its own probe.
    expect(ids(await reader.query('p', 'production', latest('page')))).toEqual(['post-29', 'post-28', 'post-27']);
    expect(probes()).toBe(2);
    clock += 1_001;
    expect(ids(await reader.query('p', 'production', latest('post')))).toEqual(['post-19', 'post-18', 'post-17']);
    expect(probes()).toBe(3);
  });

  it('gives the same result from a stale probe as from a fresh one', async () => {
    const { executor, probes } = counting();
    const reader = new DocumentIndexReader(executor, () => 1_000);
    expect(ids(await reader.query('p', 'production', latest('page')))).toEqual(['post-29', 'post-28', 'post-27']);
    // Pages now outnumber what the probe counted; the kept count still only picks the plan.
    const more = Array.from({ length: 5 }, (_, i) => ({ _id: `zz-${i}`, _type: 'page', n: 100 + i, _rev: 'r', _createdAt: NOW, _updatedAt: NOW }));
    await store.transaction((tx) => tx.documents.putMany('p', 'production', more));
    expect(ids(await reader.query('p', 'production', latest('page')))).toEqual(['zz-4', 'zz-3', 'zz-2']);
    expect(probes()).toBe(1);
  });

  it('chooses the same path for a query in a batch as alone, counting for the whole batch in one statement', async () => {
    const { executor, probes } = counting();
    const reader = new DocumentIndexReader(executor, () => 1_000);
    const batch = await reader.queryMany('p', 'production', [{ query: latest('post'), shapes: null }, { query: latest('page'), shapes: null }]);
    expect(probes()).toBe(1);
    expect(batch.map(ids)).toEqual([
      ['post-19', 'post-18', 'post-17'],
      ['zz-4', 'zz-3', 'zz-2'],
    ]);
    const alone = [await new DocumentIndexReader(db, () => 1_000).query('p', 'production', latest('post')), await new DocumentIndexReader(db, () => 1_000).query('p', 'production', latest('page'))];
    expect(batch.map((result) => result.sql)).toEqual(alone.map((result) => result.sql));
  });
});
