// Checkpoints on a real SQLite file run on a worker thread: committed pages reach the database
// file without any commit copying them, and closing the store waits for the worker.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { openSqliteDatabase } from '../../src/store/sqlite/sqlite-database.ts';
import type { Database } from '../../src/store/sql.ts';

const settle = async <T>(read: () => T, done: (value: T) => boolean): Promise<T> => {
  const until = Date.now() + 5_000;
  let value = read();
  while (!done(value) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    value = read();
  }
  return value;
};

describe('SQLite WAL checkpoints', () => {
  let dir: string;
  let file: string;
  let db: Database;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cms-checkpoint-'));
    file = join(dir, 'test.db');
    db = openSqliteDatabase(file);
    await db.run('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  });

  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies committed pages into the database file in the background', async () => {
    const before = await settle(() => statSync(file).size, (size) => size > 0);
    // About 200 pages: below the 1,000 at which SQLite's own checkpoint would run in the commit.
    await db.transaction(async (tx) => {
      for (let k = 0; k < 200; k++) await tx.run('INSERT INTO t (k, v) VALUES (?, ?)', [k, 'x'.repeat(4000)]);
    });
    const after = await settle(() => statSync(file).size, (size) => size >= before + 200 * 4000);
    expect(after).toBeGreaterThanOrEqual(before + 200 * 4000);
    expect((await db.get<{ n: number }>('SELECT count(*) AS n FROM t'))?.n).toBe(200);
  });

  it('keeps checkpointing as commits come, and reads see every commit', async () => {
    for (let k = 0; k < 50; k++) await db.run('INSERT INTO t (k, v) VALUES (?, ?)', [k, 'y'.repeat(4000)]);
    const grown = await settle(() => statSync(file).size, (size) => size >= 50 * 4000);
    expect(grown).toBeGreaterThanOrEqual(50 * 4000);
    expect((await db.all<{ k: number }>('SELECT k FROM t ORDER BY k')).map((row) => row.k)).toEqual(Array.from({ length: 50 }, (_, k) => k));
  });

  it('finishes a checkpoint that a reader held back once the reader is done, without another commit', async () => {
    const before = await settle(() => statSync(file).size, (size) => size > 0);
    // A reader in the middle of a read transaction pins the snapshot before the writes below.
    const reader = new BetterSqlite3(file, { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM t').get();
    try {
      await db.transaction(async (tx) => {
        for (let k = 0; k < 100; k++) await tx.run('INSERT INTO t (k, v) VALUES (?, ?)', [k, 'z'.repeat(4000)]);
      });
      // The checkpoint after the commit could not copy the frames the reader may still need.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(statSync(file).size).toBeLessThan(before + 100 * 4000);
    } finally {
      reader.exec('COMMIT');
      reader.close();
    }
    const after = await settle(() => statSync(file).size, (size) => size >= before + 100 * 4000);
    expect(after).toBeGreaterThanOrEqual(before + 100 * 4000);
  });

  it('keeps the WAL near its limit while commits follow each other without a pause', async () => {
    await db.close();
    const limit = 1 << 20;
    db = openSqliteDatabase(file, { walLimitBytes: limit });
    // 60 transactions of about 200 pages each, back to back: 48 MB through a 1 MB WAL. A checkpoint
    // that runs while the next transaction writes can never finish, so without a pause before
    // a write the WAL would only ever grow.
    let largest = 0;
    for (let n = 0; n < 60; n++) {
      await db.transaction(async (tx) => {
        for (let k = 0; k < 200; k++) await tx.run('INSERT OR REPLACE INTO t (k, v) VALUES (?, ?)', [n * 200 + k, String(n).repeat(4000)]);
      });
      largest = Math.max(largest, statSync(`${file}-wal`).size);
    }
    // The limit, plus what the writes above it before a checkpoint caught up (a transaction or two).
    expect(largest).toBeLessThan(limit + 4 * 200 * 4200);
    expect((await db.get<{ n: number }>('SELECT count(*) AS n FROM t'))?.n).toBe(60 * 200);
  });
});
