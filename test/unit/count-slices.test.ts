// On SQLite, whose reads run on the server's thread, a count is read a slice of rows per statement
// with the event loop free between them (DocumentIndexReader.countInSlices): the counts must be
// exactly those of one statement, whatever the slice, and a count larger than a slice must be
// read in several statements. On a real SQLite file.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DocumentIndexReader } from '../../src/store/document-index/reader.ts';
import type { DocumentCondition, DocumentQuery } from '../../src/store/document-index/document-query.ts';
import { encodeScalar } from '../../src/store/document-index/values.ts';
import type { SqlExecutor } from '../../src/store/sql.ts';
import { countingStatements, stored, useIndexedSqlite } from '../helpers/indexed-sqlite.ts';

const DOCUMENTS = stored(
  Array.from({ length: 23 }, (_, i) => ({
    _id: `d${String(i).padStart(2, '0')}`,
    _type: i % 7 < 4 ? 'post' : 'page',
    n: i % 3,
    ...(i % 2 === 0 ? { ref: { _type: 'reference', _ref: 'd00' } } : {}),
  })),
);

/** Conditions whose rows come in id order (counted in slices), or not (one statement), with their counts. */
const CONDITIONS: { name: string; where: DocumentCondition; expected: number }[] = [
  { name: 'every document', where: { kind: 'all' }, expected: 23 },
  { name: 'one type', where: { kind: 'type', types: ['post'] }, expected: DOCUMENTS.filter((d) => d._type === 'post').length },
  { name: 'two types', where: { kind: 'type', types: ['post', 'page'] }, expected: 23 },
  { name: 'a value', where: { kind: 'value', path: 'n', low: { value: encodeScalar(1), inclusive: true }, high: { value: encodeScalar(1), inclusive: true } }, expected: DOCUMENTS.filter((d) => d.n === 1).length },
  { name: 'ids in a range', where: { kind: 'idRange', low: { value: 'd05', inclusive: true } }, expected: 18 },
];

describe('counts in slices (SQLite)', () => {
  const indexed = useIndexedSqlite(DOCUMENTS);
  const db = () => indexed.db();

  /** The database, counting the statements that look for where a slice ends. */
  function counting(): { executor: SqlExecutor; boundaries: () => number } {
    const { executor, count } = countingStatements(db(), 'all', 'LIMIT 1 OFFSET');
    return { executor, boundaries: count };
  }

  const count = (where: DocumentCondition): DocumentQuery => ({ where, order: { kind: 'id', descending: false }, offset: 0, limit: null, select: { kind: 'count' } });
  const counted = async (reader: DocumentIndexReader, where: DocumentCondition) => {
    const result = await reader.query('p', 'production', count(where));
    return 'count' in result ? result.count : null;
  };

  it('gives the count of one statement, whatever the slice', async () => {
    const whole = new DocumentIndexReader(db(), () => 1_000, undefined, 1_000_000);
    for (const condition of CONDITIONS) expect([condition.name, await counted(whole, condition.where)]).toEqual([condition.name, condition.expected]);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 30 }), async (slice) => {
        const reader = new DocumentIndexReader(db(), () => 1_000, undefined, slice);
        for (const condition of CONDITIONS) expect([condition.name, slice, await counted(reader, condition.where)]).toEqual([condition.name, slice, condition.expected]);
      }),
      { numRuns: 40 },
    );
  });

  it("counts in a value's order only the documents with a value there", async () => {
    const reader = new DocumentIndexReader(db(), () => 1_000, undefined, 4);
    const withRef = DOCUMENTS.filter((d) => 'ref' in d).length;
    const result = await reader.query('p', 'production', { ...count({ kind: 'all' }), order: { kind: 'value', path: 'ref._ref', descending: false } });
    expect('count' in result && result.count).toBe(withRef);
  });

  it('reads a count larger than a slice in several statements, where its rows come in id order', async () => {
    const { executor, boundaries } = counting();
    const reader = new DocumentIndexReader(executor, () => 1_000, undefined, 4);
    // Once, so that the plan's own counts are known (they are sliced too).
    for (const condition of CONDITIONS) await counted(reader, condition.where);
    const before = boundaries();
    expect(await counted(reader, { kind: 'all' })).toBe(23);
    // Five slices of four, and the last look that finds no fifth row past them.
    expect(boundaries() - before).toBe(6);
    // A count within a slice is one statement.
    const beforeSmall = boundaries();
    expect(await counted(reader, { kind: 'idRange', high: { value: 'd02', inclusive: true } })).toBe(3);
    expect(boundaries() - beforeSmall).toBe(0);
    const posts = CONDITIONS[1]!.expected;
    const beforePosts = boundaries();
    expect(await counted(reader, { kind: 'type', types: ['post'] })).toBe(posts);
    expect(boundaries() - beforePosts).toBe(Math.floor(posts / 4) + 1);
    // Rows of two types come in two runs of ids: sorting them for every slice would cost more than one statement.
    const beforeTwo = boundaries();
    expect(await counted(reader, { kind: 'type', types: ['post', 'page'] })).toBe(23);
    expect(boundaries() - beforeTwo).toBe(0);
  });
});
