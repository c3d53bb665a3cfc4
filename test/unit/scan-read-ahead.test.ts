// A long scan's pages: where the database reads beside the thread (PostgreSQL), the next page is
// asked for before the current one is handed out, so that it is read while the evaluator works;
// where it reads on the thread (SQLite), only once the evaluator asks for it. The candidates of an
// answer asked for whole are read a page per statement there too. A page read ahead
// that fails is reported where it is awaited, never as an unhandled rejection. On the test
// database (the read-ahead itself does not depend on the engine; the context says whether to do it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanRequest } from '../../src/groq/index.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import type { DocumentQuery, DocumentQueryResult } from '../../src/store/document-index/document-query.ts';
import type { ShapeInfo } from '../../src/store/document-index/entries.ts';
import { ConditionTranslator } from '../../src/store/document-index/source/constraint-conditions.ts';
import { IndexBatcher } from '../../src/store/document-index/source/index-batcher.ts';
import { ScanExecution, type ScanContext } from '../../src/store/document-index/source/scan-execution.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/engine.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const PAGE_SIZES = { documents: 10, values: 10 };

/** `*[_type == "item"].n`, as the planner asks for it. */
const REQUEST: ScanRequest = {
  scan: 1,
  constraints: [{ kind: 'compare', path: ['_type'], op: '==', value: 'item' }],
  constraintFields: [[['_type']]],
  complete: true,
  order: null,
  window: null,
  count: false,
  fields: [['n']],
};

/** The real batcher, recording each query as it is asked, and failing the `failAt`th if given. */
class RecordingBatcher extends IndexBatcher {
  readonly asked: DocumentQuery[] = [];
  failAt: number | null = null;

  override query(query: DocumentQuery, shapes: readonly ShapeInfo[] | null = null): Promise<DocumentQueryResult> {
    this.asked.push(query);
    if (this.asked.length === this.failAt) return Promise.reject(new Error('the database went away'));
    return super.query(query, shapes);
  }
}

describe('pages of a long scan', () => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = createTestDatabase();
    store = openStore(database.databaseUrl, database.schema ? { schema: database.schema } : {});
    await store.migrate();
    await store.projects.insert({ id: 'p', name: 'P', slug: 'p', datasets: ['production'], locales: null, createdAt: NOW, updatedAt: NOW });
    const documents = Array.from({ length: 25 }, (_, i) => ({ _id: `item-${String(i).padStart(2, '0')}`, _type: 'item', n: i, _rev: 'r', _createdAt: NOW, _updatedAt: NOW }));
    await store.transaction((tx) => tx.documents.putMany('p', 'production', documents));
  });

  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  function contextOf(readAhead: boolean, limit?: ScanContext['limit']): { context: ScanContext; batcher: RecordingBatcher } {
    const batcher = new RecordingBatcher(store, 'p', 'production');
    const context: ScanContext = {
      batcher,
      readsOffThread: readAhead,
      verbatim: false,
      ...(limit ? { limit } : {}),
      shapes: async () => {
        const shapes = await store.documentIndex.shapes('p', 'production');
        return { all: shapes, translator: new ConditionTranslator(shapes), byHash: new Map(shapes.map((shape) => [shape.hash, shape])), nonScalarPaths: new Set() };
      },
    };
    return { context, batcher };
  }

  function execution(readAhead: boolean): { pages: AsyncGenerator<{ documents?: readonly unknown[] }>; batcher: RecordingBatcher } {
    const { context, batcher } = contextOf(readAhead);
    return { pages: new ScanExecution(REQUEST, context).pages(PAGE_SIZES), batcher };
  }

  const numbers = (page: { documents?: readonly unknown[] }) => (page.documents ?? []).map((document) => (document as { n: number }).n);

  it.each([
    { readAhead: true, askedWithFirst: 2, where: 'before handing out this one, where the database reads beside the thread' },
    { readAhead: false, askedWithFirst: 1, where: 'only once it is wanted, where the database reads on the thread' },
  ])('asks for the next page $where', async ({ readAhead, askedWithFirst }) => {
    const { pages, batcher } = execution(readAhead);
    const first = await pages.next();
    expect(numbers(first.value!)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(batcher.asked).toHaveLength(askedWithFirst);
    const rest: number[] = [];
    for await (const page of pages) rest.push(...numbers(page));
    expect(rest).toEqual(Array.from({ length: 15 }, (_, i) => i + 10));
    // Pages of 10: the third, of 5, is the last; nothing is asked after it.
    expect(batcher.asked).toHaveLength(3);
  });

  it.each([
    { readAhead: true, statements: 1, where: 'in one statement where the database reads beside the thread' },
    { readAhead: false, statements: 3, where: 'a page per statement where it reads on the thread' },
  ])('reads the candidates of a whole answer $where, up to the budget', async ({ readAhead, statements }) => {
    const whole = contextOf(readAhead);
    const answer = await new ScanExecution(REQUEST, whole.context).run(PAGE_SIZES);
    expect(numbers(answer)).toEqual(Array.from({ length: 25 }, (_, i) => i));
    expect(whole.batcher.asked).toHaveLength(statements);
    // Past 12 documents the budget is exceeded: told of 13, read in two pages of 10 on the thread.
    const budgeted = contextOf(readAhead, {
      documents: 12,
      textCharacters: Infinity,
      exceeded: (held) => {
        throw new Error(held);
      },
    });
    await expect(new ScanExecution(REQUEST, budgeted.context).run(PAGE_SIZES)).rejects.toThrow('13 or more documents');
    expect(budgeted.batcher.asked).toHaveLength(readAhead ? 1 : 2);
  });

  it('reports a page read ahead that failed where it is awaited, and nowhere when it is not', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const failing = execution(true);
      failing.batcher.failAt = 2;
      expect(numbers((await failing.pages.next()).value!)).toHaveLength(10);
      // The evaluator works on the first page while the second fails.
      await new Promise((resolve) => setTimeout(resolve, 20));
      await expect(failing.pages.next()).rejects.toThrow('the database went away');

      const abandoned = execution(true);
      abandoned.batcher.failAt = 2;
      await abandoned.pages.next();
      await abandoned.pages.return(undefined);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });
});
