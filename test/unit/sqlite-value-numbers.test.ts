// On SQLite the value rows' number column (`num`, for sums in SQL) came with migration 13, after
// documents were indexed without it: the migration fills it for the rows already stored, from
// their encoded values, and the sums read from it are those of the documents. On a real file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { evaluate } from '../../src/groq/index.ts';
import { openStore, StoreDocumentSource, type Store } from '../../src/store/index.ts';
import { encodedNumber } from '../../src/store/document-index/values.ts';
import { stored } from '../helpers/indexed-sqlite.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const NUMBERS = [0, 1, -1, 0.5, -2.25, 1e308, -1e-300, 5e-324, 2 ** 53 - 1, 123456.789];

describe('the value rows of numbers stored before migration 13 (SQLite)', () => {
  let dir: string | undefined;
  let store: Store | undefined;

  afterEach(async () => {
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('get their numbers from the migration, and sums read them', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cms-value-numbers-'));
    const file = join(dir, 'content.db');
    store = openStore(`sqlite:${file}`);
    await store.migrate();
    await store.projects.insert({ id: 'p', name: 'P', slug: 'p', datasets: ['production'], locales: null, createdAt: NOW, updatedAt: NOW });
    const documents = NUMBERS.map((n, i) => ({ _id: `d${i}`, _type: 'n', n, label: `number ${i}`, flag: i % 2 === 0 }));
    await store.transaction((tx) => tx.documents.putMany('p', 'production', stored(documents)));
    await store.close();
    store = undefined;

    // The database as migration 12 left it: no number column.
    const raw = new BetterSqlite3(file);
    raw.exec('ALTER TABLE document_values DROP COLUMN num; DELETE FROM schema_migrations WHERE version = 13');
    raw.close();

    store = openStore(`sqlite:${file}`);
    expect((await store.migrate()).applied).toEqual([13]);
    const check = new BetterSqlite3(file, { readonly: true });
    const rows = check.prepare("SELECT path, value, num FROM document_values WHERE project_id = 'p'").all() as { path: string; value: string; num: number | null }[];
    check.close();
    expect(rows.filter((row) => row.path === 'n').map((row) => row.num).sort((a, b) => a! - b!)).toEqual([...NUMBERS].sort((a, b) => a - b));
    expect(rows.filter((row) => row.num !== encodedNumber(row.value))).toEqual([]);
    expect(rows.filter((row) => row.path !== 'n' && row.num !== null)).toEqual([]);

    const source = new StoreDocumentSource(store, 'p', 'production');
    for (const f of ['math::min', 'math::max', 'math::avg']) {
      const text = `${f}(*[_type == "n"].n)`;
      expect(await evaluate(text, { source }), text).toEqual(await evaluate(text, { dataset: documents, planner: false }));
    }
  });
});
