// The SQLite store's two connections keep small page caches: the file is cached by the operating
// system too, a large reader cache kept pages of scans resident, and a large writer cache left
// malloc's heap larger after an import without making it faster.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../src/store/sqlite/sqlite-database.ts';

describe('SQLite connections', () => {
  it('gives the writer and the reader an 8 MB page cache each', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cms-connections-'));
    const db = openSqliteDatabase(join(dir, 'test.db'));
    try {
      expect(await db.get('PRAGMA cache_size')).toEqual({ cache_size: -8000 });
      expect(await db.transaction((tx) => tx.get('PRAGMA cache_size'))).toEqual({ cache_size: -8000 });
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
