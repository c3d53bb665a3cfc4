// Group commit on a real SQLite file: transactions that wait together commit together, each stays
// atomic (a failing one rolls back alone), and a failure that ends the shared transaction fails
// only the transactions that ran in it; the others run again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { openSqliteDatabase } from '../../src/store/sqlite/sqlite-database.ts';
import type { Database } from '../../src/store/sql.ts';

describe('SQLite group commit', () => {
  let dir: string;
  let db: Database;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cms-group-commit-'));
    db = openSqliteDatabase(join(dir, 'test.db'));
    await db.run('CREATE TABLE t (k TEXT PRIMARY KEY)');
  });

  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const keys = async () => (await db.all<{ k: string }>('SELECT k FROM t ORDER BY k')).map((row) => row.k);

  it('commits transactions handed in together as one, with every result', async () => {
    // SQLite's data_version counts the commits of other connections.
    const observer = new BetterSqlite3(join(dir, 'test.db'));
    const version = () => observer.pragma('data_version', { simple: true }) as number;
    const before = version();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        db.transaction(async (tx) => {
          await tx.run('INSERT INTO t (k) VALUES (?)', [`k${String(i).padStart(2, '0')}`]);
          return i;
        }),
      ),
    );
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(await keys()).toHaveLength(20);
    // One commit for the batch, not twenty.
    expect(version() - before).toBe(1);
    observer.close();
  });

  it('rolls back a failing transaction alone; the others of its batch commit', async () => {
    const outcomes = await Promise.allSettled([
      db.transaction((tx) => tx.run("INSERT INTO t (k) VALUES ('a')")),
      db.transaction(async (tx) => {
        await tx.run("INSERT INTO t (k) VALUES ('b')");
        throw new Error('rejected by the application');
      }),
      db.transaction(async (tx) => {
        await tx.run("INSERT INTO t (k) VALUES ('c')");
        // A constraint violation: its first write goes too.
        await tx.run("INSERT INTO t (k) VALUES ('a')");
      }),
      db.transaction((tx) => tx.run("INSERT INTO t (k) VALUES ('d')")),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(await keys()).toEqual(['a', 'd']);
  });

  it('fails the transactions that ran when one ends the shared transaction, and runs the rest again', async () => {
    const outcomes = await Promise.allSettled([
      db.transaction((tx) => tx.run("INSERT INTO t (k) VALUES ('a')")),
      db.transaction(async (tx) => {
        await tx.run('ROLLBACK');
        throw new Error('the transaction is gone');
      }),
      db.transaction((tx) => tx.run("INSERT INTO t (k) VALUES ('c')")),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    // Nothing of the first is stored: it was never answered as committed.
    expect(await keys()).toEqual(['c']);
  });

  it('waits for transactions handed in before closing', async () => {
    const pending = db.transaction((tx) => tx.run("INSERT INTO t (k) VALUES ('late')"));
    await db.close();
    await pending;
    db = openSqliteDatabase(join(dir, 'test.db'));
    expect(await keys()).toEqual(['late']);
  });
});
