// The SQLite store's two connections: the writer with a page cache for large transactions, the
// reader with a small one (the file is cached by the operating system too; a large reader cache
// kept pages of scans resident).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../src/store/sqlite/sqlite-database.ts';

describe('SQLite connections', () => {
  it('gives the writer a 32 MB page cache and the reader 8 MB', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cms-connections-'));
    const db = openSqliteDatabase(join(dir, 'test.db'));
    try {
      expect(await db.get('PRAGMA cache_size')).toEqual({ cache_size: -8000 });
      expect(await db.transaction((tx) => tx.get('PRAGMA cache_size'))).toEqual({ cache_size: -32000 });
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
