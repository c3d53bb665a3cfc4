// The SQLite store prepares every parameter as the expression `+?` (so that SQLite does not
// prepare a statement again each time a value is bound). The values, their types and how columns
// compare with them must stay exactly what a bare `?` gives: checked against a plain connection
// with generated values.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import BetterSqlite3 from 'better-sqlite3';
import { openSqliteDatabase } from '../../src/store/sqlite/sqlite-database.ts';
import { withParameterExpressions } from '../../src/store/sqlite/parameter-expressions.ts';
import type { Database } from '../../src/store/sql.ts';

const table = (name: string) => `CREATE TABLE ${name} (k INTEGER PRIMARY KEY, txt TEXT, num INTEGER, real_value REAL, bin BLOB, any_value)`;
const COLUMNS = ['txt', 'num', 'real_value', 'bin', 'any_value'] as const;

const value = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.string(),
  fc.stringMatching(/^-?\d{1,6}(\.\d{1,3})?$/),
  fc.uint8Array({ maxLength: 8 }).map((bytes) => Buffer.from(bytes)),
);

describe('SQLite parameters', () => {
  let dir: string;
  let store: Database;
  let plain: BetterSqlite3.Database;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cms-parameters-'));
    store = openSqliteDatabase(join(dir, 'test.db'));
    // `t` is written through the store, `u` through a plain connection.
    await store.run(table('t'));
    await store.run(table('u'));
    plain = new BetterSqlite3(join(dir, 'test.db'));
  });

  afterAll(async () => {
    plain.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes every placeholder as an expression', () => {
    expect(withParameterExpressions('SELECT x FROM t WHERE a = ? AND b IN (?, ?) ORDER BY x LIMIT ?')).toBe(
      'SELECT x FROM t WHERE a = +? AND b IN (+?, +?) ORDER BY x LIMIT +?',
    );
  });

  it('reads back every value with its type, as a bare placeholder does', async () => {
    await fc.assert(
      fc.asyncProperty(value, async (v) => {
        const expected = plain.prepare('SELECT ? AS v, typeof(?) AS t').get(v, v);
        expect(await store.get('SELECT ? AS v, typeof(?) AS t', [v, v])).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('stores and compares values under each column affinity as a bare placeholder does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(value, { minLength: 1, maxLength: 6 }), value, async (stored, probe) => {
        await store.run('DELETE FROM t');
        plain.exec('DELETE FROM u');
        const insert = (name: string) => `INSERT INTO ${name} (${COLUMNS.join(', ')}) VALUES (?, ?, ?, ?, ?)`;
        for (const v of stored) {
          await store.run(insert('t'), [v, v, v, v, v]);
          plain.prepare(insert('u')).run(v, v, v, v, v);
        }
        const rows = (name: string) => `SELECT ${COLUMNS.map((c) => `${c}, typeof(${c}) AS ${c}_type`).join(', ')} FROM ${name} ORDER BY k`;
        expect(await store.all(rows('t'))).toEqual(plain.prepare(rows('u')).all());
        for (const column of COLUMNS) {
          const equal = (name: string) => `SELECT k FROM ${name} WHERE ${column} = ? ORDER BY k`;
          expect(await store.all(equal('t'), [probe])).toEqual(plain.prepare(equal('u')).all(probe));
          const sorted = (name: string) => `SELECT MAX(k) AS k FROM ${name} WHERE ${column} >= ? GROUP BY ${column} ORDER BY ${column}`;
          expect(await store.all(sorted('t'), [probe])).toEqual(plain.prepare(sorted('u')).all(probe));
        }
      }),
      { numRuns: 150 },
    );
  });
});
