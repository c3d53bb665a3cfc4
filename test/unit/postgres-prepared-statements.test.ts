// PostgreSQL: a statement to plan once (a lookup by key) and every write with parameters run
// prepared on their connection, parsed once there; a lookup on a connection of the lookups' own,
// which plans it once (its generic plan from the first run), a write planned once when a generic
// plan serves; every other read runs unnamed, planned for its parameters' values. At most MAX_PREPARED_PER_CONNECTION statements per
// connection; a connection whose statement failed is kept. On PostgreSQL whatever the test engine:
// SQLite has no such thing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PREPARED_PARAMETERS, MAX_PREPARED_PER_CONNECTION, openPostgresDatabase } from '../../src/store/postgres/postgres-database.ts';
import { createStoreOn } from '../../src/store/store.ts';
import { evaluate } from '../../src/groq/index.ts';
import { StoreDocumentSource } from '../../src/store/index.ts';
import type { Database } from '../../src/store/sql.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/engine.ts';

const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

describe('PostgreSQL: statements prepared on their connection', () => {
  let test: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    test = createTestDatabase(url);
    // One connection for statements and one for lookups, so that each statement runs on the one whose prepared statements are looked at.
    db = openPostgresDatabase(url, { schema: test.schema!, max: 1 });
    await db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  });
  afterAll(async () => {
    await db.close();
    await test.drop();
  });

  /** A connection's prepared statements (this query's own left out), with how often each ran: the lookups' connection, or the other statements'. */
  const prepared = (on: 'lookups' | 'statements' = 'lookups') =>
    db.all<{ statement: string; runs: number }>(
      'SELECT statement, generic_plans + custom_plans AS runs FROM pg_prepared_statements WHERE statement NOT LIKE ? ORDER BY statement',
      ['%pg_prepared_statements%'],
      { planOnce: on === 'lookups' },
    );

  it('prepares a statement to plan once and a write, and runs every other statement unnamed', async () => {
    for (let i = 1; i <= 7; i++) await db.run('INSERT INTO t (id, v) VALUES (?, ?)', [i, `v${i}`]);
    for (let i = 1; i <= 3; i++) expect(await db.get('SELECT v FROM t WHERE id = ?', [i], { planOnce: true })).toEqual({ v: `v${i}` });
    expect(await db.all('SELECT id FROM t WHERE id > ? ORDER BY id LIMIT 2', [4])).toEqual([{ id: 5 }, { id: 6 }]);
    expect(await prepared('statements')).toEqual([{ statement: 'INSERT INTO t (id, v) VALUES ($1, $2)', runs: 7 }]);
    expect(await prepared('lookups')).toEqual([{ statement: 'SELECT v FROM t WHERE id = $1', runs: 3 }]);
  });

  it("keeps a lookup's generic plan from its first run, and plans other statements for their values", async () => {
    const settings = async (planOnce: boolean) => (await db.get<{ mode: string }>('SELECT current_setting(?) AS mode', ['plan_cache_mode'], { planOnce }))!.mode;
    expect(await settings(true)).toBe('force_generic_plan');
    expect(await settings(false)).toBe('auto');
    // Neither runs a statement with parallel workers.
    for (const planOnce of [true, false]) {
      expect(await db.get('SELECT current_setting(?) AS n', ['max_parallel_workers_per_gather'], { planOnce })).toEqual({ n: '0' });
    }
    await db.get('SELECT v FROM t WHERE id = ? AND v <> ?', [1, 'x'], { planOnce: true });
    const plans = await db.get<{ generic: number; custom: number }>(
      'SELECT generic_plans AS generic, custom_plans AS custom FROM pg_prepared_statements WHERE statement = ?',
      ['SELECT v FROM t WHERE id = $1 AND v <> $2'],
      { planOnce: true },
    );
    expect(plans).toEqual({ generic: 1, custom: 0 });
  });

  it(`runs a statement of more than ${MAX_PREPARED_PARAMETERS} parameters unnamed, however it is asked`, async () => {
    const rows = MAX_PREPARED_PARAMETERS / 2 + 1;
    const values = Array.from({ length: rows }, (_, i) => [1000 + i, `w${i}`]);
    await db.run(`INSERT INTO t (id, v) VALUES ${values.map(() => '(?, ?)').join(', ')}`, values.flat());
    expect(await db.get('SELECT count(*)::int AS n FROM t WHERE id >= ?', [1000], { planOnce: false })).toEqual({ n: rows });
    expect((await prepared()).filter((row) => row.statement.startsWith('INSERT INTO t (id, v) VALUES ($1, $2), '))).toEqual([]);
    // Unnamed too (a read's way), so that the next test's list of prepared statements is as it was.
    await db.all('DELETE FROM t WHERE id >= ? RETURNING id', [1000]);
  });

  it('keeps the connection and its statements when a statement fails', async () => {
    const backends = async () => [await db.get<{ pid: number }>('SELECT pg_backend_pid() AS pid'), await db.get<{ pid: number }>('SELECT pg_backend_pid() AS pid', [], { planOnce: true })];
    const before = await backends();
    await expect(db.run('INSERT INTO t (id, v) VALUES (?, ?)', [1, 'again'])).rejects.toThrow(/duplicate key/);
    await expect(db.all('SELECT nope FROM t WHERE id = ?', [1], { planOnce: true })).rejects.toThrow(/nope/);
    await expect(db.get('SELECT v FROM t WHERE id = ?', ['not a number'], { planOnce: true })).rejects.toThrow(/integer/);
    expect(await backends()).toEqual(before);
    expect(await db.get('SELECT v FROM t WHERE id = ?', [7], { planOnce: true })).toEqual({ v: 'v7' });
    // The run refused at binding ('not a number') was never planned.
    expect(await prepared()).toContainEqual({ statement: 'SELECT v FROM t WHERE id = $1', runs: 4 });
    expect((await prepared('statements')).map((row) => row.statement)).toEqual(['INSERT INTO t (id, v) VALUES ($1, $2)']);
  });

  it(`prepares at most ${MAX_PREPARED_PER_CONNECTION} statements on a connection, then runs new texts unnamed`, async () => {
    // Texts that differ only in a literal, as a window's LIMIT and OFFSET do.
    for (let i = 0; i < MAX_PREPARED_PER_CONNECTION + 20; i++) {
      expect(await db.get(`SELECT v FROM t WHERE id = ? LIMIT ${i + 1}`, [2], { planOnce: true })).toEqual({ v: 'v2' });
    }
    // Read on the lookups' connection; at the limit, this statement itself runs unnamed.
    const count = (await db.get<{ n: number }>('SELECT count(*) AS n FROM pg_prepared_statements WHERE ? = ?', [1, 1], { planOnce: true }))!.n;
    // The statement that failed to parse above took a place without being prepared.
    expect(count).toBeLessThanOrEqual(MAX_PREPARED_PER_CONNECTION);
    expect(count).toBeGreaterThan(MAX_PREPARED_PER_CONNECTION - 5);
    // Statements prepared before the limit still run prepared.
    await db.get('SELECT v FROM t WHERE id = ?', [2], { planOnce: true });
    expect(await prepared()).toContainEqual({ statement: 'SELECT v FROM t WHERE id = $1', runs: 5 });
  });

  it('plans once what the query planner finds by key, and plans a scan for its values', async () => {
    const storeDb = createTestDatabase(url);
    // The store on one connection, whose prepared statements are then looked at through the same database.
    const database = openPostgresDatabase(url, { schema: storeDb.schema!, max: 1 });
    const store = createStoreOn(database);
    try {
      await store.migrate();
      const now = '2026-01-01T00:00:00.000Z';
      await store.projects.insert({ id: 'p', name: 'P', slug: 'p', datasets: ['d'], locales: null, createdAt: now, updatedAt: now });
      const docs = Array.from({ length: 30 }, (_, i) => ({ _id: `post${String(i).padStart(2, '0')}`, _type: 'post', n: i, tags: [i], author: { _ref: 'a1' }, _rev: 'r', _createdAt: now, _updatedAt: now }));
      await store.transaction((tx) => tx.documents.putMany('p', 'd', [...docs, { _id: 'a1', _type: 'author', name: 'Ann', _rev: 'r', _createdAt: now, _updatedAt: now }]));
      const run = (query: string) => evaluate(query, { source: new StoreDocumentSource(store, 'p', 'd') });
      expect(await run('*[_type == "post"] | order(n desc)[0...2]{n, tags, "a": author->name}')).toEqual([
        { n: 29, tags: [29], a: 'Ann' },
        { n: 28, tags: [28], a: 'Ann' },
      ]);
      expect(await run('count(*[_type == "post" && n > 3])')).toBe(26);
      // Further down a listing: the OFFSET is in the text, so each page would be a statement of its own.
      expect(await run('*[_type == "post"] | order(n desc)[5...7].n')).toEqual([24, 23]);
      // The store's lookup connection: the window, the shapes and the dereference are prepared there, the count is not (on either).
      const statementsOn = async (planOnce: boolean) =>
        (await database.all<{ statement: string }>('SELECT statement FROM pg_prepared_statements WHERE ? = ?', [1, 1], { planOnce })).map((row) => row.statement);
      const statements = await statementsOn(true);
      expect((await statementsOn(false)).some((text) => text.includes('COUNT('))).toBe(false);
      expect(statements.some((text) => /ORDER BY .* LIMIT 2 /.test(text))).toBe(true);
      expect(statements.some((text) => text.includes('FROM document_shapes'))).toBe(true);
      // The dereference: the documents' text with their sizes, parsed as they fit (DocumentRepository.getMany).
      expect(statements.some((text) => text.startsWith('SELECT CAST(content AS TEXT) AS content, GREATEST(content_bytes, heap_bytes) AS bytes FROM documents'))).toBe(true);
      expect(statements.some((text) => text.includes('COUNT('))).toBe(false);
      expect(statements.some((text) => /OFFSET [1-9]/.test(text))).toBe(false);
    } finally {
      await store.close();
      await storeDb.drop();
    }
  });
});
