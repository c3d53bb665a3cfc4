// Conditions on a list of values (`x IN (...)`) with an empty list: PostgreSQL refuses `IN ()` as a
// syntax error, where SQLite matches nothing. A request that came to one (`?authors=` once did, a
// 500 on PostgreSQL) must get a statement that runs and matches nothing, on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.ts';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/engine.ts';
import { stored } from '../helpers/indexed-sqlite.ts';

const NOW = '2026-01-01T00:00:00.000Z';

describe(`conditions on empty lists (${testEngine})`, () => {
  let db: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    db = createTestDatabase();
    store = openStore(db.databaseUrl, db.schema ? { schema: db.schema } : {});
    await store.migrate();
    await store.projects.insert({ id: 'p', name: 'P', slug: 'p', datasets: ['production'], locales: null, createdAt: NOW, updatedAt: NOW });
    await store.transaction((tx) => tx.documents.putMany('p', 'production', stored([{ _id: 'a', _type: 't', n: 1 }])));
  });

  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  it('match nothing, and run', async () => {
    expect(await store.transactionLog.documentChanges('p', 'production', ['a'], { reverse: false, authors: [] }, 10)).toEqual([]);
    expect(await store.transactionLog.transactionChanges('p', 'production', [], [])).toEqual([]);
    expect(await store.transactionLog.transactionChanges('p', 'production', ['t1'], [])).toEqual([]);
    expect((await store.revisions.contents('p', 'production', [], ['t1'])).size).toBe(0);
    expect(await store.documentIndex.shapesOf('p', 'production', [])).toEqual(new Map());
  });
});
