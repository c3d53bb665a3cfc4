// The planner's probes (how many documents a broad condition yields, to choose what drives a
// query) only choose the plan: the same probe within PROBE_TTL_MS is answered from memory, so a
// repeated query sends one statement fewer, with the same result. On a real SQLite file.
import { describe, expect, it } from 'vitest';
import { DocumentIndexReader } from '../../src/store/document-index/reader.ts';
import type { DocumentQuery } from '../../src/store/document-index/document-query.ts';
import type { SqlExecutor } from '../../src/store/sql.ts';
import { countingStatements, stored, useIndexedSqlite } from '../helpers/indexed-sqlite.ts';

describe('document index probes', () => {
  const indexed = useIndexedSqlite(stored(Array.from({ length: 30 }, (_, i) => ({ _id: `post-${i}`, _type: i < 20 ? 'post' : 'page', n: i }))));
  const db = () => indexed.db();

  /** The database, counting the probes sent to it. */
  function counting(): { executor: SqlExecutor; probes: () => number } {
    const { executor, count } = countingStatements(db(), 'get', 'COUNT(*)');
    return { executor, probes: count };
  }

  // A type beside a value order with a window: whether the type is small enough to drive is probed.
  const latest = (type: string): DocumentQuery => ({
    where: { kind: 'type', types: [type] },
    order: { kind: 'value', path: 'n', descending: true },
    offset: 0,
    limit: 3,
    select: { kind: 'values', paths: ['n'], type: false },
  });
  const ids = (result: Awaited<ReturnType<DocumentIndexReader['query']>>) => ('rows' in result ? result.rows.map((row) => row.id) : []);

  it('probes once per condition within the time a probe is kept, then again', async () => {
    // Not 0: lru-cache takes a start time of 0 for "no expiry".
    let clock = 1_000;
    const { executor, probes } = counting();
    const reader = new DocumentIndexReader(executor, () => clock);
    expect(ids(await reader.query('p', 'production', latest('post')))).toEqual(['post-19', 'post-18', 'post-17']);
    expect(probes()).toBe(1);
    clock += 9_000;
    expect(ids(await reader.query('p', 'production', latest('post')))).toEqual(['post-19', 'post-18', 'post-17']);
    expect(probes()).toBe(1);
    // Another condition has its own probe.
    expect(ids(await reader.query('p', 'production', latest('page')))).toEqual(['post-29', 'post-28', 'post-27']);
    expect(probes()).toBe(2);
    clock += 1_001;
    expect(ids(await reader.query('p', 'production', latest('post')))).toEqual(['post-19', 'post-18', 'post-17']);
    expect(probes()).toBe(3);
  });

  it('gives the same result from a stale probe as from a fresh one', async () => {
    const { executor, probes } = counting();
    const reader = new DocumentIndexReader(executor, () => 1_000);
    expect(ids(await reader.query('p', 'production', latest('page')))).toEqual(['post-29', 'post-28', 'post-27']);
    // Pages now outnumber what the probe counted; the kept count still only picks the plan.
    const more = stored(Array.from({ length: 5 }, (_, i) => ({ _id: `zz-${i}`, _type: 'page', n: 100 + i })));
    await indexed.store().transaction((tx) => tx.documents.putMany('p', 'production', more));
    expect(ids(await reader.query('p', 'production', latest('page')))).toEqual(['zz-4', 'zz-3', 'zz-2']);
    expect(probes()).toBe(1);
  });

  it('chooses the same path for a query in a batch as alone, counting for the whole batch in one statement', async () => {
    const { executor, probes } = counting();
    const reader = new DocumentIndexReader(executor, () => 1_000);
    const batch = await reader.queryMany('p', 'production', [{ query: latest('post'), shapes: null }, { query: latest('page'), shapes: null }]);
    expect(probes()).toBe(1);
    expect(batch.map(ids)).toEqual([
      ['post-19', 'post-18', 'post-17'],
      ['zz-4', 'zz-3', 'zz-2'],
    ]);
    const alone = [await new DocumentIndexReader(db(), () => 1_000).query('p', 'production', latest('post')), await new DocumentIndexReader(db(), () => 1_000).query('p', 'production', latest('page'))];
    expect(batch.map((result) => result.sql)).toEqual(alone.map((result) => result.sql));
  });
});
