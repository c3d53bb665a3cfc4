// SQLite answers many subqueries of one text (a count per document of a page) in chunks, one
// statement each, with the event loop free between them; a chunk is made smaller after a long
// one and larger after a quick one. Whatever the chunks, each subquery gets its own answer, in
// its place. On a real SQLite file.
import { describe, expect, it } from 'vitest';
import { DocumentIndexReader, type AskedQuery } from '../../src/store/document-index/reader.ts';
import { nextChunkSize } from '../../src/store/document-index/dialects/sqlite.ts';
import type { DocumentQuery } from '../../src/store/document-index/document-query.ts';
import { countingStatements, stored, useIndexedSqlite } from '../helpers/indexed-sqlite.ts';

const DOCUMENTS = stored(
  Array.from({ length: 40 }, (_, i) => ({
    _id: `d${String(i).padStart(2, '0')}`,
    _type: 'post',
    // Document i refers to the documents whose number divides i.
    refs: Array.from({ length: 40 }, (_, j) => j)
      .filter((j) => j > 0 && i % j === 0)
      .map((j) => ({ _key: `k${j}`, _type: 'reference', _ref: `d${String(j).padStart(2, '0')}` })),
  })),
);

describe('batches of subqueries (SQLite)', () => {
  const indexed = useIndexedSqlite(DOCUMENTS);

  const referring = (n: number): DocumentQuery => ({
    where: { kind: 'references', ids: [`d${String(n).padStart(2, '0')}`] },
    order: { kind: 'id', descending: false },
    offset: 0,
    limit: null,
    select: { kind: 'count' },
  });

  it('answers each of many subqueries in its place, over several chunks', async () => {
    const { executor, count } = countingStatements(indexed.db(), 'all', 'WITH k(');
    const reader = new DocumentIndexReader(executor, () => 1_000);
    // 150 subqueries: more than the first chunk holds, so that chunks are resized between statements.
    const asked: AskedQuery[] = Array.from({ length: 150 }, (_, i) => ({ query: referring(1 + (i % 39)), shapes: null }));
    const results = await reader.queryMany('p', 'production', asked);
    const expected = asked.map((_, i) => DOCUMENTS.filter((d) => Number(d._id.slice(1)) % (1 + (i % 39)) === 0).length);
    expect(results.map((result) => ('count' in result ? result.count : null))).toEqual(expected);
    expect(count()).toBeGreaterThan(1);
  });

  it('halves a chunk after a long statement and doubles it after a quick one, within bounds', () => {
    expect(nextChunkSize(32, 40)).toBe(16);
    expect(nextChunkSize(1, 40)).toBe(1);
    expect(nextChunkSize(32, 1)).toBe(64);
    expect(nextChunkSize(512, 1)).toBe(512);
    expect(nextChunkSize(32, 8)).toBe(32);
  });
});
