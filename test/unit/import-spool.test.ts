import { mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeStaleSpools } from '../../src/import-export/import-spool.ts';

describe('import bodies left behind', () => {
  it('are removed at start once a day old; recent ones may be another instance\'s import and stay', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'cms-spool-'));
    const old = 'import-0b6f4c8e-2d1a-4a55-9b36-000000000001.body';
    const recent = 'import-0b6f4c8e-2d1a-4a55-9b36-000000000002.body';
    const other = 'notes.txt';
    for (const name of [old, recent, other]) writeFileSync(join(directory, name), 'x');
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    utimesSync(join(directory, old), twoDaysAgo, twoDaysAgo);
    utimesSync(join(directory, other), twoDaysAgo, twoDaysAgo);
    expect(await removeStaleSpools(directory)).toBe(1);
    expect(readdirSync(directory).sort()).toEqual([recent, other].sort());
    expect(await removeStaleSpools(join(directory, 'missing'))).toBe(0);
  });
});
