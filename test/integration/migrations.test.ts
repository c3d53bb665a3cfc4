import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.ts';
import { migrations } from '../../src/store/migrations/index.ts';

const versions = migrations.map((migration) => migration.version);
const latest = Math.max(...versions);
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/engine.ts';

describe(`migrations (${testEngine})`, () => {
  let db: TestDatabase | undefined;
  const stores: Store[] = [];

  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await db?.drop();
  });

  function open(): Store {
    const store = openStore(db!.databaseUrl, db!.schema ? { schema: db!.schema } : {});
    stores.push(store);
    return store;
  }

  it('applies every migration once and is idempotent', async () => {
    db = createTestDatabase();
    const store = open();
    const first = await store.migrate();
    expect(first.applied).toEqual(versions);
    expect(first.current).toBe(latest);
    const second = await store.migrate();
    expect(second).toEqual({ applied: [], current: latest });
    expect(await store.users.count()).toBe(0);
  });

  it('applies each migration exactly once when several instances migrate at the same moment', async () => {
    db = createTestDatabase();
    const results = await Promise.all([open(), open(), open()].map((store) => store.migrate()));
    expect(results.flatMap((result) => result.applied)).toEqual(versions);
  });

  it('rolls a write transaction back when it throws', async () => {
    db = createTestDatabase();
    const store = open();
    await store.migrate();
    const now = new Date().toISOString();
    const project = { id: 'p1', name: 'P', slug: 'p', datasets: ['production'], locales: null, createdAt: now, updatedAt: now };
    await expect(
      store.transaction(async (tx) => {
        await tx.projects.insert(project);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await store.projects.findById('p1')).toBeUndefined();
    await store.transaction(async (tx) => tx.projects.insert(project));
    expect(await store.projects.findById('p1')).toMatchObject({ slug: 'p', datasets: ['production'] });
  });
});
