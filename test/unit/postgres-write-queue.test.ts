// PostgreSQL: the INSERTs of a transaction made through `write` wait and go out as one statement
// (src/store/postgres/write-queue.ts), always before a statement that could see them and before
// the transaction ends, so that every read and the outcome are what running each write at once
// gives; a failing held write fails the transaction. On PostgreSQL whatever the test engine.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import pg from 'pg';
import { openPostgresDatabase } from '../../src/store/postgres/postgres-database.ts';
import type { Database, SqlExecutor } from '../../src/store/sql.ts';
import { AppError } from '../../src/errors.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/engine.ts';

const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TABLES = ['a', 'b', 'c'] as const;

describe('PostgreSQL: held writes', () => {
  let test: TestDatabase;
  let db: Database;
  /** The statements the driver sent, in order. */
  let sent: string[] = [];
  const original = pg.Client.prototype.query;

  beforeAll(async () => {
    test = createTestDatabase(url);
    db = openPostgresDatabase(url, { schema: test.schema!, max: 1 });
    for (const table of TABLES) {
      await db.run(`CREATE TABLE ${table} (k INTEGER PRIMARY KEY, v TEXT NOT NULL)`);
      await db.run(`CREATE TABLE ${table}_plain (k INTEGER PRIMARY KEY, v TEXT NOT NULL)`);
    }
    (pg.Client.prototype as { query: unknown }).query = function (this: pg.Client, ...args: unknown[]) {
      const first = args[0];
      sent.push(typeof first === 'string' ? first : (first as { text: string }).text);
      return (original as (...rest: unknown[]) => unknown).apply(this, args);
    };
  });
  afterAll(async () => {
    pg.Client.prototype.query = original;
    await db.close();
    await test.drop();
  });
  beforeEach(async () => {
    for (const table of TABLES) await db.run(`DELETE FROM ${table}`);
    sent = [];
  });

  const keys = async (table: string) => (await db.all<{ k: number }>(`SELECT k FROM ${table} ORDER BY k`)).map((row) => row.k);
  const insert = (tx: SqlExecutor, table: string, k: number, v = `v${k}`) => tx.write(`INSERT INTO ${table} (k, v) VALUES (?, ?)`, [k, v]);

  it("sends a transaction's INSERTs into different tables as one statement", async () => {
    await db.transaction(async (tx) => {
      await insert(tx, 'a', 1);
      await insert(tx, 'b', 2);
      await insert(tx, 'c', 3);
    });
    expect(sent).toEqual([
      'BEGIN',
      'WITH w0 AS (INSERT INTO a (k, v) VALUES ($1, $2)), w1 AS (INSERT INTO b (k, v) VALUES ($3, $4)) INSERT INTO c (k, v) VALUES ($5, $6)',
      'COMMIT',
    ]);
    expect([await keys('a'), await keys('b'), await keys('c')]).toEqual([[1], [2], [3]]);
  });

  it('sends held writes before a read of their table, and not before a read of another', async () => {
    const seen = await db.transaction(async (tx) => {
      await insert(tx, 'a', 1);
      const other = await tx.all('SELECT k FROM b');
      const own = await tx.all('SELECT k FROM a');
      return { other, own };
    });
    expect(seen).toEqual({ other: [], own: [{ k: 1 }] });
    expect(sent).toEqual(['BEGIN', 'SELECT k FROM b', 'INSERT INTO a (k, v) VALUES ($1, $2)', 'SELECT k FROM a', 'COMMIT']);
  });

  it('sends held writes first before a write to the same table, one that reads a held table, and any other statement', async () => {
    await db.transaction(async (tx) => {
      await insert(tx, 'a', 1);
      await insert(tx, 'a', 2);
      await tx.write('INSERT INTO b (k, v) SELECT k, v FROM a');
      await insert(tx, 'c', 3);
      await tx.run('UPDATE c SET v = ? WHERE k = ?', ['changed', 3]);
    });
    expect(sent).toEqual([
      'BEGIN',
      'INSERT INTO a (k, v) VALUES ($1, $2)',
      'INSERT INTO a (k, v) VALUES ($1, $2)',
      'WITH w0 AS (INSERT INTO b (k, v) SELECT k, v FROM a) INSERT INTO c (k, v) VALUES ($1, $2)',
      'UPDATE c SET v = $1 WHERE k = $2',
      'COMMIT',
    ]);
    expect(await keys('b')).toEqual([1, 2]);
    expect(await db.all('SELECT v FROM c')).toEqual([{ v: 'changed' }]);
  });

  it('ends a joined statement with a write that has a WITH of its own', async () => {
    await db.transaction(async (tx) => {
      await insert(tx, 'a', 1);
      await tx.write("WITH inserted AS (INSERT INTO b (k, v) VALUES (?, ?) RETURNING 1) SELECT pg_notify('cms_test', '') FROM inserted LIMIT 1", [2, 'v2']);
      await insert(tx, 'c', 3);
    });
    expect(sent.slice(1, -1)).toEqual([
      "WITH w0 AS (INSERT INTO a (k, v) VALUES ($1, $2)), inserted AS (INSERT INTO b (k, v) VALUES ($3, $4) RETURNING 1) SELECT pg_notify('cms_test', '') FROM inserted LIMIT 1",
      'INSERT INTO c (k, v) VALUES ($1, $2)',
    ]);
    expect([await keys('a'), await keys('b'), await keys('c')]).toEqual([[1], [2], [3]]);
  });

  it('fails the transaction when a held write fails, and keeps none of it', async () => {
    await db.run('INSERT INTO c (k, v) VALUES (?, ?)', [9, 'v9']);
    const failed = db.transaction(async (tx) => {
      await tx.run('INSERT INTO a (k, v) VALUES (?, ?)', [1, 'v1']);
      await insert(tx, 'b', 2);
      await insert(tx, 'c', 9);
    });
    // A key another transaction took first: a race lost, answered 409, with PostgreSQL's error as its cause.
    await expect(failed).rejects.toMatchObject({ code: 'CONFLICT', statusCode: 409, cause: { code: '23505' } });
    expect([await keys('a'), await keys('b'), await keys('c')]).toEqual([[], [], [9]]);
  });

  it('sends held writes when the transaction is refused, so that it fails where a write would (a dry run)', async () => {
    const refused = new Error('refused after writing');
    await expect(
      db.transaction(async (tx) => {
        await insert(tx, 'a', 1);
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(sent).toContain('INSERT INTO a (k, v) VALUES ($1, $2)');
    const nul = await db
      .transaction(async (tx) => {
        await insert(tx, 'a', 1, 'with \u0000 in it');
        throw refused;
      })
      .catch((error: unknown) => error);
    expect(nul).toBeInstanceOf(AppError);
    expect(nul).toMatchObject({ code: 'BAD_REQUEST' });
    expect(await keys('a')).toEqual([]);
  });

  it("drops held writes after a failed statement, whose error stands", async () => {
    const failed = db.transaction(async (tx) => {
      await insert(tx, 'a', 1);
      await tx.get('SELECT 1 / (k - k) AS n FROM b UNION ALL SELECT 1 / 0');
    });
    await expect(failed).rejects.toMatchObject({ code: '22012' });
    expect(sent.filter((text) => text.includes('INSERT'))).toEqual([]);
    expect(await keys('a')).toEqual([]);
  });

  type Step = { kind: 'insert'; table: (typeof TABLES)[number] } | { kind: 'copy'; from: (typeof TABLES)[number]; to: (typeof TABLES)[number] } | { kind: 'read'; table: (typeof TABLES)[number] };
  const table = fc.constantFrom(...TABLES);
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant('insert' as const), table }),
    fc.record({ kind: fc.constant('copy' as const), from: table, to: table }).filter((copy) => copy.from !== copy.to),
    fc.record({ kind: fc.constant('read' as const), table }),
  );

  /**
   * Runs `steps` in one transaction on tables named with `suffix`, writing through `write` or
   * `run`: what each read saw, or the error that failed it (copies can collide on a key).
   */
  async function play(steps: readonly Step[], suffix: string, through: 'write' | 'run'): Promise<{ seen: unknown[] } | { failed: unknown }> {
    let next = 0;
    const played = db.transaction(async (tx) => {
      const seen: unknown[] = [];
      const send = (text: string, params: unknown[] = []) => (through === 'write' ? tx.write(text, params) : tx.run(text, params).then(() => undefined));
      for (const each of steps) {
        if (each.kind === 'insert') await send(`INSERT INTO ${each.table}${suffix} (k, v) VALUES (?, ?)`, [++next, `v${next}`]);
        // A copy's rows get keys above every key inserted so far (a copy of a copy can still collide).
        else if (each.kind === 'copy') await send(`INSERT INTO ${each.to}${suffix} (k, v) SELECT k + ${(next += 1000)}, v FROM ${each.from}${suffix}`);
        else seen.push(await tx.all(`SELECT k, v FROM ${each.table}${suffix} ORDER BY k`));
      }
      return seen;
    });
    return played.then(
      (seen) => ({ seen }),
      (error: { code?: string }) => ({ failed: error.code }),
    );
  }

  it('reads and stores what running each write at once does, for generated transactions', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 14 }), async (steps) => {
        for (const name of TABLES) await db.run(`DELETE FROM ${name}; DELETE FROM ${name}_plain`);
        const held = await play(steps, '', 'write');
        const plain = await play(steps, '_plain', 'run');
        expect(held).toEqual(plain);
        for (const name of TABLES) {
          expect(await db.all(`SELECT k, v FROM ${name} ORDER BY k`)).toEqual(await db.all(`SELECT k, v FROM ${name}_plain ORDER BY k`));
        }
      }),
      { numRuns: 60 },
    );
  });
});
