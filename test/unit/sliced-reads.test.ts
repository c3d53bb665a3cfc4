// On SQLite, whose reads run on the server's thread, a count or a window whose rows come in id
// order is read a slice of its access path's rows per statement, with the event loop free between
// them (DocumentIndexReader.inSlices), and so is a window walked in a path's value order with a
// filter (inValueSlices), and a summary of a path's numbers (inNumberSlices): a statement reads
// at most a slice's rows however few of them match. The answers must be exactly those of one
// statement, whatever the slice, and a sparse query must take several statements. On a real
// SQLite file.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DocumentIndexReader } from '../../src/store/document-index/reader.ts';
import { and, not, type DocumentCondition, type DocumentQuery, type DocumentSelection } from '../../src/store/document-index/document-query.ts';
import { encodeScalar } from '../../src/store/document-index/values.ts';
import type { NumberSummary } from '../../src/groq/index.ts';
import type { SqlExecutor } from '../../src/store/sql.ts';
import { countingStatements, stored, useIndexedSqlite } from '../helpers/indexed-sqlite.ts';

const DOCUMENTS = stored(
  Array.from({ length: 23 }, (_, i) => ({
    _id: `d${String(i).padStart(2, '0')}`,
    _type: i % 7 < 4 ? 'post' : 'page',
    n: i % 3,
    k: i,
    // Numbers with signs and fractions, and numbers with a string among them (a summary of mixed values).
    m: ((i * 7) % 10) - 4.5,
    w: i === 17 ? 'seventeen' : i,
    ...(i % 2 === 0 ? { ref: { _type: 'reference', _ref: 'd00' } } : {}),
  })),
);
const POSTS = DOCUMENTS.filter((d) => d._type === 'post');

const equal = (path: string, value: number): DocumentCondition => ({ kind: 'value', path, low: { value: encodeScalar(value), inclusive: true }, high: { value: encodeScalar(value), inclusive: true } });
const TYPE_POST: DocumentCondition = { kind: 'type', types: ['post'] };

type Doc = (typeof DOCUMENTS)[number];
const isPost = (d: Doc) => d._type === 'post';

/** Conditions whose rows come in id order (read in slices; some with a filter on each row), or not (one statement), with what they match. */
const CONDITIONS: { name: string; where: DocumentCondition; matches: (d: Doc) => boolean }[] = [
  { name: 'every document', where: { kind: 'all' }, matches: () => true },
  { name: 'one type', where: TYPE_POST, matches: isPost },
  { name: 'two types', where: { kind: 'type', types: ['post', 'page'] }, matches: () => true },
  { name: 'a value', where: equal('n', 1), matches: (d) => d.n === 1 },
  { name: 'ids in a range', where: { kind: 'idRange', low: { value: 'd05', inclusive: true } }, matches: (d) => d._id >= 'd05' },
  { name: 'a type, not a value', where: and([TYPE_POST, not(equal('n', 1))]), matches: (d) => isPost(d) && d.n !== 1 },
  { name: 'a type and a value', where: and([TYPE_POST, equal('n', 2)]), matches: (d) => isPost(d) && d.n === 2 },
  // No index drives a negation: the type's rows are read, and only the last (d22) matches.
  { name: 'a type, only the last document', where: and([TYPE_POST, not({ kind: 'value', path: 'k', high: { value: encodeScalar(21), inclusive: true } })]), matches: (d) => isPost(d) && (d.k as number) > 21 },
];

/** A window's parameters: the reader's slice, an offset, a limit, a direction, the document it starts after (if any) and a selection. */
function windowShapes(most: { slices: number; offsets: number; limits: number }, selections: readonly DocumentSelection[]) {
  return fc.record({
    slice: fc.integer({ min: 1, max: most.slices }),
    offset: fc.integer({ min: 0, max: most.offsets }),
    limit: fc.integer({ min: 1, max: most.limits }),
    descending: fc.boolean(),
    after: fc.option(fc.constantFrom(...DOCUMENTS), { nil: undefined }),
    select: fc.constantFrom(...selections),
  });
}

/** The ids a window of a query holds, from the documents themselves. */
function expectedIds(query: DocumentQuery, matches: (d: Doc) => boolean): string[] {
  const descending = query.order.kind === 'id' && query.order.descending;
  const after = query.after?.id;
  const ids = DOCUMENTS.filter(matches)
    .map((d) => d._id)
    .filter((id) => after === undefined || (descending ? id < after : id > after))
    .sort();
  if (descending) ids.reverse();
  return ids.slice(query.offset, query.offset + (query.limit ?? ids.length));
}

describe('reads in slices (SQLite)', () => {
  const indexed = useIndexedSqlite(DOCUMENTS);
  const db = () => indexed.db();
  const whole = () => new DocumentIndexReader(db(), () => 1_000, undefined, 1_000_000);

  /** The database, counting every statement. */
  function counting(): { executor: SqlExecutor; statements: () => number } {
    const { executor, count } = countingStatements(db(), 'all', 'SELECT');
    return { executor, statements: count };
  }

  const count = (where: DocumentCondition): DocumentQuery => ({ where, order: { kind: 'id', descending: false }, offset: 0, limit: null, select: { kind: 'count' } });
  const counted = async (reader: DocumentIndexReader, where: DocumentCondition) => {
    const result = await reader.query('p', 'production', count(where));
    return 'count' in result ? result.count : null;
  };
  const rowsOf = async (reader: DocumentIndexReader, query: DocumentQuery) => {
    const result = await reader.query('p', 'production', query);
    return 'rows' in result ? result.rows : null;
  };
  /** A window from the documents themselves: those it matches past `after` in `inOrder`, from its offset. */
  const windowIds = (matches: (d: Doc) => boolean, inOrder: (a: Doc, b: Doc) => number, { after, offset, limit }: { after: Doc | undefined; offset: number; limit: number }) =>
    DOCUMENTS.filter(matches)
      .filter((d) => after === undefined || inOrder(d, after) > 0)
      .sort(inOrder)
      .slice(offset, offset + limit)
      .map((d) => d._id);
  /** A reader slicing by `slice` rows answers `query` with the window `expected`, and with the rows of one that reads it in one statement. */
  const expectSlicedWindow = async (slice: number, query: DocumentQuery, expected: readonly string[], name = '') => {
    const rows = await rowsOf(new DocumentIndexReader(db(), () => 1_000, undefined, slice), query);
    expect([name, rows?.map((row) => row.id)]).toEqual([name, expected]);
    expect(rows).toEqual(await rowsOf(whole(), query));
  };

  it('gives the exact count, whatever the slice', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 30 }), async (slice) => {
        const reader = new DocumentIndexReader(db(), () => 1_000, undefined, slice);
        for (const condition of CONDITIONS) {
          const expected = DOCUMENTS.filter(condition.matches).length;
          expect([condition.name, slice, await counted(reader, condition.where)]).toEqual([condition.name, slice, expected]);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('gives the exact window, whatever the slice, window, direction and page, with the rows of a reader that slices by more than all rows', async () => {
    const selections: DocumentSelection[] = [{ kind: 'content' }, { kind: 'values', paths: ['n'], type: true }, { kind: 'paths', paths: [['n'], ['ref', '_ref']] }];
    await fc.assert(
      fc.asyncProperty(
        windowShapes({ slices: 30, offsets: 8, limits: 12 }, selections),
        fc.constantFrom(...CONDITIONS),
        async ({ slice, offset, limit, descending, after, select }, condition) => {
          const query: DocumentQuery = {
            where: condition.where,
            order: { kind: 'id', descending },
            offset,
            limit,
            select,
            ...(after === undefined ? {} : { after: { id: after._id } }),
          };
          await expectSlicedWindow(slice, query, expectedIds(query, condition.matches));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("gives the exact window in a path's value order, whatever the slice, window, direction and page after a row", async () => {
    // Conditions no index drives (a negation), so that the window walks the order's value rows
    // and checks each: `n` ties in threes, `k` does not.
    const walked: { name: string; where: DocumentCondition; matches: (d: Doc) => boolean }[] = [
      { name: 'not a value', where: not(equal('n', 1)), matches: (d) => d.n !== 1 },
      { name: 'not a type', where: not(TYPE_POST), matches: (d) => !isPost(d) },
      { name: 'only the last document', where: not({ kind: 'value', path: 'k', high: { value: encodeScalar(21), inclusive: true } }), matches: (d) => (d.k as number) > 21 },
    ];
    const selections: DocumentSelection[] = [{ kind: 'content' }, { kind: 'values', paths: ['k'], type: true }, { kind: 'paths', paths: [['n'], ['ref', '_ref']] }];
    await fc.assert(
      fc.asyncProperty(
        windowShapes({ slices: 30, offsets: 8, limits: 12 }, selections),
        fc.constantFrom(...walked),
        fc.constantFrom('n', 'k'),
        async ({ slice, offset, limit, descending, after, select }, condition, path) => {
          const valueOf = (d: Doc) => d[path] as number;
          const query: DocumentQuery = {
            where: condition.where,
            order: { kind: 'value', path, descending },
            offset,
            limit,
            select,
            ...(after === undefined ? {} : { after: { id: after._id, value: encodeScalar(valueOf(after)) } }),
          };
          // In the order's values, ties in id order; past the row `after` in that order.
          const inOrder = (a: Doc, b: Doc) => (valueOf(a) === valueOf(b) ? a._id.localeCompare(b._id) : (valueOf(a) - valueOf(b)) * (descending ? -1 : 1));
          await expectSlicedWindow(slice, query, windowIds(condition.matches, inOrder, { after, offset, limit }));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("sums a path's numbers a slice of its value rows at a time, as one statement does, whatever the slice", async () => {
    const summary = (query: DocumentQuery, reader: DocumentIndexReader) => reader.query('p', 'production', query).then((result) => ('numbers' in result ? result.numbers : null));
    // Without d05 to d09: a condition on ids, checked on each value row.
    const someIds = not({ kind: 'idRange', low: { value: 'd05', inclusive: true }, high: { value: 'd09', inclusive: true } });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 30 }), fc.constantFrom('n', 'k', 'm', 'w'), fc.boolean(), async (slice, path, allIds) => {
        const where: DocumentCondition = allIds ? { kind: 'value', path } : and([{ kind: 'value', path }, someIds]);
        const query: DocumentQuery = { where, order: { kind: 'value', path, descending: false }, offset: 0, limit: null, select: { kind: 'numbers' } };
        const values = DOCUMENTS.filter((d) => allIds || d._id < 'd05' || d._id > 'd09').map((d) => d[path]);
        const numbers = values.filter((value): value is number => typeof value === 'number');
        const expected: NumberSummary =
          numbers.length < values.length
            ? { kind: 'mixed' }
            : {
                kind: 'numbers',
                count: numbers.length,
                sum: numbers.reduce((a, b) => a + b, 0),
                min: Math.min(...numbers),
                max: Math.max(...numbers),
                magnitude: numbers.reduce((a, b) => a + Math.abs(b), 0),
                fractions: numbers.filter((n) => !Number.isInteger(n)).length,
              };
        const reader = new DocumentIndexReader(db(), () => 1_000, undefined, slice);
        expect(await summary(query, reader)).toEqual(expected);
        expect(await summary(query, whole())).toEqual(expected);
      }),
      { numRuns: 60 },
    );
    // A slice of value rows is four times an id slice's (here four rows): a look for its end, and its summary.
    const { executor, statements } = counting();
    const reader = new DocumentIndexReader(executor, () => 1_000, undefined, 1);
    const query: DocumentQuery = { where: { kind: 'value', path: 'k' }, order: { kind: 'value', path: 'k', descending: false }, offset: 0, limit: null, select: { kind: 'numbers' } };
    await summary(query, reader);
    const before = statements();
    await summary(query, reader);
    expect(statements() - before).toBe(2 * Math.ceil(DOCUMENTS.length / 4));
  });

  it('skips a far offset a slice of the index at a time, and gives the window one statement gives, whatever the slice', async () => {
    // Windows whose path yields their rows in order, with nothing but ids checked on them: one
    // statement would read every row the offset skips.
    const notSomeIds = not({ kind: 'idRange', low: { value: 'd05', inclusive: true }, high: { value: 'd09', inclusive: true } });
    const outsideSomeIds = (d: Doc) => d._id < 'd05' || d._id > 'd09';
    const windows: { name: string; where: DocumentCondition; path: 'n' | 'k' | null; matches: (d: Doc) => boolean }[] = [
      ...CONDITIONS.filter((c) => ['every document', 'one type', 'a value', 'ids in a range'].includes(c.name)).map((c) => ({ ...c, path: null })),
      { name: 'ids, but some', where: notSomeIds, path: null, matches: outsideSomeIds },
      { name: 'in the order of k', where: { kind: 'value', path: 'k' }, path: 'k', matches: () => true },
      { name: 'in the order of n (ties)', where: { kind: 'value', path: 'n' }, path: 'n', matches: () => true },
      { name: 'in the order of n, but some ids', where: and([{ kind: 'value', path: 'n' }, notSomeIds]), path: 'n', matches: outsideSomeIds },
    ];
    const selections: DocumentSelection[] = [{ kind: 'content' }, { kind: 'values', paths: ['k'], type: true }];
    await fc.assert(
      fc.asyncProperty(
        windowShapes({ slices: 6, offsets: 25, limits: 5 }, selections),
        fc.constantFrom(...windows),
        async ({ slice, offset, limit, descending, after, select }, window) => {
          const { path } = window;
          const query: DocumentQuery = {
            where: window.where,
            order: path === null ? { kind: 'id', descending } : { kind: 'value', path, descending },
            offset,
            limit,
            select,
            ...(after === undefined ? {} : { after: path === null ? { id: after._id } : { id: after._id, value: encodeScalar(after[path] as number) } }),
          };
          const key = (d: Doc): [number, string] => [path === null ? 0 : (d[path] as number), d._id];
          const inOrder = (a: Doc, b: Doc) => {
            const [x, i] = key(a);
            const [y, j] = key(b);
            // Ties in id order either way.
            return x !== y ? (x - y) * (descending ? -1 : 1) : path === null && descending ? j.localeCompare(i) : i.localeCompare(j);
          };
          await expectSlicedWindow(slice, query, windowIds(window.matches, inOrder, { after, offset, limit }), window.name);
        },
      ),
      { numRuns: 300 },
    );
    // Slices of four rows: an offset of 20 is four looks for a slice's last row, then the window past it.
    const { executor, statements } = counting();
    const reader = new DocumentIndexReader(executor, () => 1_000, undefined, 1);
    const farDown: DocumentQuery[] = [
      { where: { kind: 'all' }, order: { kind: 'id', descending: true }, offset: 20, limit: 2, select: { kind: 'content' } },
      { where: { kind: 'value', path: 'k' }, order: { kind: 'value', path: 'k', descending: false }, offset: 20, limit: 2, select: { kind: 'content' } },
    ];
    for (const query of farDown) {
      await rowsOf(reader, query);
      const before = statements();
      expect(await rowsOf(reader, query)).toHaveLength(2);
      expect(statements() - before).toBe(5);
    }
    // With a filter, the slices are sized by the window's own rows, not by those its offset skips:
    // the sixth post with n other than 1 is the ninth post, each post a slice (the first, then a
    // look for the end of each slice and the slice).
    const filtered: DocumentQuery = { where: and([TYPE_POST, not(equal('n', 1))]), order: { kind: 'id', descending: false }, offset: 5, limit: 1, select: { kind: 'content' } };
    await rowsOf(reader, filtered);
    const before = statements();
    expect((await rowsOf(reader, filtered))?.map((row) => row.id)).toEqual(['d14']);
    expect(statements() - before).toBe(2 + 2 * 8);
    // Whole documents are read for the window alone: its offset is skipped reading ids (the
    // slices of the sixth post's neighbours, d10 and d14), not for every slice before it.
    const reading = countingStatements(db(), 'all', 'content');
    const documentsRead = new DocumentIndexReader(reading.executor, () => 1_000, undefined, 1);
    await rowsOf(documentsRead, filtered);
    const readBefore = reading.count();
    expect((await rowsOf(documentsRead, filtered))?.map((row) => row.id)).toEqual(['d14']);
    expect(reading.count() - readBefore).toBe(2);
  });

  it("counts in a value's order only the documents with a value there, in slices of their type's rows", async () => {
    const { executor, statements } = counting();
    const reader = new DocumentIndexReader(executor, () => 1_000, undefined, 4);
    const withRef = DOCUMENTS.filter((d) => 'ref' in d).length;
    const byRef: DocumentQuery = { ...count({ kind: 'all' }), order: { kind: 'value', path: 'ref._ref', descending: false } };
    await reader.query('p', 'production', byRef);
    const before = statements();
    const result = await reader.query('p', 'production', byRef);
    expect('count' in result && result.count).toBe(withRef);
    // Every document is read, four a slice: the first slice's count, then a look for each further slice's end and its count.
    expect(statements() - before).toBe(1 + 2 * (Math.ceil(DOCUMENTS.length / 4) - 1));
    for (const slice of [1, 2, 3, 5, 30]) {
      const sliced = await new DocumentIndexReader(db(), () => 1_000, undefined, slice).query('p', 'production', { ...byRef, where: TYPE_POST });
      expect([slice, 'count' in sliced && sliced.count]).toEqual([slice, POSTS.filter((d) => 'ref' in d).length]);
    }
  });

  it('reads a query that matches few of its rows in several statements, and one that fits a slice in one', async () => {
    const { executor, statements } = counting();
    const reader = new DocumentIndexReader(executor, () => 1_000, undefined, 4);
    // Once, so that the plan's own counts are known (they are sliced too).
    for (const condition of CONDITIONS) await counted(reader, condition.where);
    const slicesOfPosts = Math.ceil(POSTS.length / 4);
    const measured = async (read: () => Promise<unknown>) => {
      const before = statements();
      await read();
      return statements() - before;
    };
    // The only match is the last post: every slice of the posts is read. The first statement (a
    // count's also says where its slice ends), then a look for the end of each slice and the slice.
    const last = CONDITIONS.find((c) => c.name === 'a type, only the last document')!.where;
    expect(await measured(() => counted(reader, last))).toBe(1 + 2 * (slicesOfPosts - 1));
    const window: DocumentQuery = { where: last, order: { kind: 'id', descending: false }, offset: 0, limit: 1, select: { kind: 'content' } };
    expect(await measured(() => rowsOf(reader, window))).toBe(2 + 2 * (slicesOfPosts - 1));
    // The first post matches: the window is full after the first statement.
    expect(await measured(() => rowsOf(reader, { ...window, where: TYPE_POST }))).toBe(1);
    expect(await measured(() => rowsOf(reader, { ...window, where: and([TYPE_POST, not(equal('n', 1))]) }))).toBe(1);
    // Without a filter a whole slice is counted by finding its end: the first statement, a look per slice, and the rest's count.
    expect(await measured(() => counted(reader, { kind: 'all' }))).toBe(1 + Math.ceil(DOCUMENTS.length / 4));
    // A count within a slice is one statement.
    expect(await measured(() => counted(reader, { kind: 'idRange', high: { value: 'd02', inclusive: true } }))).toBe(1);
    // Rows of two types come in two runs of ids: sorting them for every slice would cost more than one statement.
    expect(await measured(() => counted(reader, { kind: 'type', types: ['post', 'page'] }))).toBe(1);
    // Walked in a value's order, a slice of the value rows is a fourth of an id slice's (here one
    // row): the only match is the last row, so each row is a slice and a look for its end (but the
    // last's); then the document, by id.
    const lastByValue: DocumentQuery = { ...window, where: not({ kind: 'value', path: 'k', high: { value: encodeScalar(21), inclusive: true } }), order: { kind: 'value', path: 'k', descending: false } };
    expect(await measured(() => rowsOf(reader, lastByValue))).toBe(2 * DOCUMENTS.length - 1 + 1);
    // The first row matches: one statement, and the document.
    expect(await measured(() => rowsOf(reader, { ...lastByValue, order: { kind: 'value', path: 'k', descending: true } }))).toBe(2);
  });
});
