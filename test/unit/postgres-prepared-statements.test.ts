// PostgreSQL runs each statement with a few parameters prepared on its connection (parsed once
// there, planned once when a generic plan serves), batches unnamed, keeps at most
// MAX_PREPARED_PER_CONNECTION statements per connection, and keeps a connection whose statement failed. On PostgreSQL whatever the test
// engine: SQLite has no such thing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PREPARED_PARAMETERS, MAX_PREPARED_PER_CONNECTION, openPostgresDatabase } from '../../src/store/postgres/postgres-database.ts';
import type { Database } from '../../src/store/sql.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/engine.ts';

const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

describe('PostgreSQL: statements prepared on their connection', () => {
  let test: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    test = createTestDatabase(url);
    // One connection, so that every statement runs on the one whose prepared statements are looked at.
    db = openPostgresDatabase(url, { schema: test.schema!, max: 1 });
    await db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  });
  afterAll(async () => {
    await db.close();
    await test.drop();
  });

  /** The connection's prepared statements (this query's own left out), with how often each ran. */
  const prepared = () =>
    db.all<{ statement: string; runs: number }>('SELECT statement, generic_plans + custom_plans AS runs FROM pg_prepared_statements WHERE statement NOT LIKE ?', [
      '%pg_prepared_statements%',
    ]);

  it('parses a statement with parameters once and runs it prepared from then on', async () => {
    for (let i = 1; i <= 7; i++) await db.run('INSERT INTO t (id, v) VALUES (?, ?)', [i, `v${i}`]);
    expect(await db.get('SELECT v FROM t WHERE id = ?', [3])).toEqual({ v: 'v3' });
    const statements = await prepared();
    expect(statements).toContainEqual({ statement: 'INSERT INTO t (id, v) VALUES ($1, $2)', runs: 7 });
    expect(statements).toContainEqual({ statement: 'SELECT v FROM t WHERE id = $1', runs: 1 });
    // Without parameters: a simple query, not kept.
    expect(await db.get('SELECT count(*) AS n FROM t')).toEqual({ n: 7 });
    expect((await prepared()).some((s) => s.statement.includes('count(*)'))).toBe(false);
  });

  it('runs batches unnamed: many parameters, or an array among them', async () => {
    const ids = Array.from({ length: MAX_PREPARED_PARAMETERS + 1 }, (_, i) => i + 1);
    const listed = await db.all(`SELECT id FROM t WHERE id IN (${ids.map(() => '?').join(', ')}) ORDER BY id`, ids);
    expect(listed).toHaveLength(7);
    expect(await db.all('SELECT id FROM t WHERE id = ANY (?::integer[]) ORDER BY id', [[2, 3]])).toEqual([{ id: 2 }, { id: 3 }]);
    const statements = (await prepared()).map((s) => s.statement);
    expect(statements.some((text) => text.includes('IN ($1'))).toBe(false);
    expect(statements.some((text) => text.includes('ANY'))).toBe(false);
    // One parameter fewer, and the list is prepared.
    await db.all(`SELECT id FROM t WHERE id IN (${ids.slice(1).map(() => '?').join(', ')}) ORDER BY id`, ids.slice(1));
    expect((await prepared()).some((s) => s.statement.includes('IN ($1'))).toBe(true);
  });

  it('keeps the connection and its statements when a statement fails', async () => {
    const backend = () => db.get<{ pid: number }>('SELECT pg_backend_pid() AS pid WHERE ? = ?', [1, 1]);
    const before = await backend();
    await expect(db.run('INSERT INTO t (id, v) VALUES (?, ?)', [1, 'again'])).rejects.toThrow(/duplicate key/);
    await expect(db.all('SELECT nope FROM t WHERE id = ?', [1])).rejects.toThrow(/nope/);
    await expect(db.get('SELECT v FROM t WHERE id = ?', ['not a number'])).rejects.toThrow(/integer/);
    expect(await backend()).toEqual(before);
    await db.run('INSERT INTO t (id, v) VALUES (?, ?)', [8, 'v8']);
    expect(await db.get('SELECT v FROM t WHERE id = ?', [8])).toEqual({ v: 'v8' });
    expect(await prepared()).toContainEqual({ statement: 'INSERT INTO t (id, v) VALUES ($1, $2)', runs: 9 });
  });

  it(`prepares at most ${MAX_PREPARED_PER_CONNECTION} statements on a connection, then runs new texts unnamed`, async () => {
    // Texts that differ only in a literal, as a window's LIMIT and OFFSET do.
    for (let i = 0; i < MAX_PREPARED_PER_CONNECTION + 20; i++) {
      expect(await db.get(`SELECT v FROM t WHERE id = ? LIMIT ${i + 1}`, [2])).toEqual({ v: 'v2' });
    }
    const count = (await db.get<{ n: number }>('SELECT count(*) AS n FROM pg_prepared_statements WHERE ? = ?', [1, 1]))!.n;
    // The statement that failed to parse above took a place without being prepared.
    expect(count).toBeLessThanOrEqual(MAX_PREPARED_PER_CONNECTION);
    expect(count).toBeGreaterThan(MAX_PREPARED_PER_CONNECTION - 5);
    // Statements prepared before the limit still run prepared.
    await db.run('INSERT INTO t (id, v) VALUES (?, ?)', [9, 'v9']);
    expect(await prepared()).toContainEqual({ statement: 'INSERT INTO t (id, v) VALUES ($1, $2)', runs: 10 });
  });
});
