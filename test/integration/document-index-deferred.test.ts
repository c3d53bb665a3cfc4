// An import writes the value and reference rows of its new documents once, sorted, when its
// transaction completes (DocumentIndexWriter.replace with deferExpansion). Whatever a transaction
// wrote in between (the same id in several batches, a deletion, documents that existed before),
// the index it leaves is the one the same documents get written one at a time.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/test-app.ts';
import { testEngine, withConnection } from '../helpers/engine.ts';
import type { StoredDocument } from '../../src/store/index.ts';
import type { Database } from '../../src/store/sql.ts';
import { openSqliteDatabase } from '../../src/store/sqlite/sqlite-database.ts';
import { openPostgresDatabase } from '../../src/store/postgres/postgres-database.ts';
import { DocumentIndexWriter } from '../../src/store/document-index/index-writer.ts';
import { encodedNumber } from '../../src/store/document-index/values.ts';

const NOW = '2026-01-01T00:00:00.000Z';
/** Ids drawn from a pool this size; a batch of 64 or more new documents is expanded, not bound row by row. */
const POOL = 100;

type Step = { kind: 'put'; ids: number[]; version: number } | { kind: 'delete'; id: number };

function documentOf(n: number, version: number): StoredDocument {
  return {
    _id: n % 7 === 0 ? `drafts.doc-${n}` : `doc-${n}`,
    _type: n % 3 === 0 ? 'author' : 'post',
    _rev: `r${version}`,
    _createdAt: NOW,
    _updatedAt: NOW,
    title: `title ${n} v${version}`,
    views: (n * 31 + version) % 17,
    // Negative numbers and fractions too: each value row holds its number.
    score: (((n * 13 + version) % 11) - 5) / 4,
    ...(version % 2 === 0 ? { tags: [`t${n % 4}`, `v${version}`] } : {}),
    author: { _type: 'reference', _ref: `doc-${(n + version) % POOL}` },
  };
}

describe(`the document index of an import (${testEngine})`, () => {
  const app = useTestApp();
  let projectId: string;

  beforeAll(async () => {
    const token = await app.login();
    projectId = (await app.request<{ id: string }>('POST', '/api/v1/projects', { token, body: { name: 'Deferred', slug: 'deferred' } })).body.id;
  });

  /**
   * Every index row of a dataset, without the dataset, sorted: comparable across datasets. A value
   * row holds the number its value stands for, however it was written (bound, or expanded by the
   * database; on PostgreSQL the database computes it).
   */
  async function indexRows(dataset: string): Promise<string[]> {
    const statements = [
      "SELECT 'value' AS t, path AS a, value AS b, id, num FROM document_values WHERE project_id = ? AND dataset = ?",
      "SELECT 'reference' AS t, target_id AS a, '' AS b, id, NULL AS num FROM document_references WHERE project_id = ? AND dataset = ?",
      "SELECT 'entries' AS t, shape AS a, '' AS b, id, NULL AS num FROM document_entries WHERE project_id = ? AND dataset = ?",
    ];
    type Row = { t: string; a: string; b: string; id: string; num: number | null };
    const rows = await withConnection(app.db, {
      sqlite: (db) => statements.flatMap((sql) => db.prepare(sql).all(projectId, dataset) as Row[]),
      postgres: async (client) => {
        const all = [];
        for (const sql of statements) {
          let n = 0;
          all.push(...(await client.query<Row>(sql.replace(/\?/g, () => `$${++n}`), [projectId, dataset])).rows);
        }
        return all;
      },
    });
    expect(rows.filter((row) => row.t === 'value' && row.num !== encodedNumber(row.b))).toEqual([]);
    return rows.map((row) => JSON.stringify([row.t, row.a, row.b, row.id])).sort();
  }

  const step: fc.Arbitrary<Step> = fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('put' as const), ids: fc.uniqueArray(fc.nat(POOL - 1), { minLength: 1, maxLength: POOL, size: 'max' }), version: fc.nat(5) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), id: fc.nat(POOL - 1) }) },
  );

  it('is the index of the same documents written one at a time', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.nat(POOL - 1), { maxLength: 20 }), fc.array(step, { minLength: 1, maxLength: 5 }), async (before, steps) => {
        run++;
        const imported = `imported${run}`;
        const direct = `direct${run}`;
        // Documents that exist before the import: their rows are rewritten, not deferred.
        const existing = before.map((n) => documentOf(n, 9));
        await app.services.store.transaction((tx) => tx.documents.putMany(projectId, imported, existing));
        const final = new Map(existing.map((document) => [document._id, document]));
        await app.services.store.transaction(async (tx) => {
          for (const s of steps) {
            if (s.kind === 'put') {
              const documents = s.ids.map((n) => documentOf(n, s.version));
              await tx.documents.putMany(projectId, imported, documents, { deferIndex: true });
              for (const document of documents) final.set(document._id, document);
            } else {
              const { _id } = documentOf(s.id, 0);
              await tx.documents.delete(projectId, imported, _id);
              final.delete(_id);
            }
          }
        });
        await app.services.store.transaction(async (tx) => {
          for (const document of final.values()) await tx.documents.put(projectId, direct, document);
        });
        const rows = await indexRows(imported);
        expect(rows).toEqual(await indexRows(direct));
        expect(rows.filter((row) => row.startsWith('["value"')).length).toBeGreaterThanOrEqual(final.size * 3);
      }),
      { numRuns: 15 },
    );
  });

  it('leaves nothing of a transaction that fails after deferring', async () => {
    const documents = Array.from({ length: POOL }, (_, n) => documentOf(n, 1));
    const failed = app.services.store.transaction(async (tx) => {
      await tx.documents.putMany(projectId, 'failed', documents, { deferIndex: true });
      throw new Error('the import failed');
    });
    await expect(failed).rejects.toThrow('the import failed');
    expect(await indexRows('failed')).toEqual([]);
    // The store's next transaction has nothing of it to complete.
    await app.services.store.transaction((tx) => tx.documents.putMany(projectId, 'after', documents.slice(0, 80), { deferIndex: true }));
    expect(await indexRows('failed')).toEqual([]);
    expect((await indexRows('after')).filter((row) => row.startsWith('["value"')).length).toBeGreaterThanOrEqual(80 * 3);
  });

  it('writes them at once outside a transaction, where nothing would complete them', async () => {
    await app.services.store.documents.putMany(projectId, 'autocommit', Array.from({ length: POOL }, (_, n) => documentOf(n, 3)), { deferIndex: true });
    expect((await indexRows('autocommit')).filter((row) => row.startsWith('["value"')).length).toBeGreaterThanOrEqual(POOL * 3);
  });

  it('expands what waits once it passes its bound, and the rest when the transaction completes', async () => {
    const db: Database = app.db.engine === 'sqlite' ? openSqliteDatabase(app.db.databaseUrl.slice('sqlite:'.length)) : openPostgresDatabase(app.db.databaseUrl, { schema: app.db.schema });
    try {
      const documents = Array.from({ length: 150 }, (_, n) => documentOf(n, 2));
      const counted = await db.transaction(async (tx) => {
        const values = async (dataset: string) => Number((await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM document_values WHERE project_id = ? AND dataset = ?', [projectId, dataset]))!.n);
        const bounded = new DocumentIndexWriter(tx, { deferAtMost: 100 });
        await bounded.replace(projectId, 'bounded', documents.slice(0, 70), { deferExpansion: true });
        const waiting = await values('bounded');
        await bounded.replace(projectId, 'bounded', documents.slice(70), { deferExpansion: true });
        const passed = await values('bounded');
        const unbounded = new DocumentIndexWriter(tx);
        await unbounded.replace(projectId, 'unbounded', documents, { deferExpansion: true });
        const deferred = await values('unbounded');
        await unbounded.completeDeferred();
        return { waiting, passed, deferred, completed: await values('unbounded') };
      });
      expect(counted).toEqual({ waiting: 0, passed: counted.completed, deferred: 0, completed: expect.any(Number) });
      expect(counted.completed).toBeGreaterThanOrEqual(150 * 3);
      expect(await indexRows('bounded')).toEqual(await indexRows('unbounded'));
    } finally {
      await db.close();
    }
  });
});
