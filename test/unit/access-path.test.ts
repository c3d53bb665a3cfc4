// The access path chooser: given a query's conditions, order and window, and what is known of the
// data (counts of what a condition's index yields, a type's share, the shapes), which index yields
// the candidates and which conditions are left to check on each row. Unknown counts are asked for
// (the reader measures them and asks again).
import { describe, expect, it } from 'vitest';
import { chooseAccessPath, PROBE_CAP, type IndexStatistics, type ProbedCondition } from '../../src/store/document-index/access-path.ts';
import type { DocumentCondition, DocumentQuery } from '../../src/store/document-index/document-query.ts';
import type { PathKind, ShapeInfo } from '../../src/store/document-index/entries.ts';

const type = (...types: string[]): DocumentCondition => ({ kind: 'type', types });
const equal = (path: string, value: string): DocumentCondition => ({ kind: 'value', path, low: { value, inclusive: true }, high: { value, inclusive: true } });
const above = (path: string, value: string): DocumentCondition => ({ kind: 'value', path, low: { value, inclusive: false } });
const notDraft: DocumentCondition = { kind: 'not', condition: { kind: 'idRange', low: { value: 'drafts.', inclusive: true }, high: { value: 'drafts/', inclusive: false } } };

function query(where: DocumentCondition[], more: Partial<DocumentQuery> = {}): DocumentQuery {
  return {
    where: where.length === 1 ? where[0]! : { kind: 'and', conditions: where },
    order: { kind: 'id', descending: false },
    offset: 0,
    limit: null,
    select: { kind: 'content' },
    ...more,
  };
}

function shape(hash: string, typeName: string, paths: Record<string, PathKind>): ShapeInfo {
  return { hash, type: typeName, paths: new Map(Object.entries(paths)) };
}

/** Statistics with these counts (by condition, as JSON), shares (by type) and shapes; records what was asked and not known. */
function known(counts: [DocumentCondition, number][] = [], shares: Record<string, number> = {}, shapes: ShapeInfo[] | null = null) {
  const asked: string[] = [];
  const statistics: IndexStatistics = {
    shapes,
    rowsOf: (condition: ProbedCondition) => {
      const found = counts.find(([c]) => JSON.stringify(c) === JSON.stringify(condition));
      if (!found) asked.push(`rows ${JSON.stringify(condition)}`);
      return found?.[1];
    },
    shareOf: (types) => {
      const share = shares[types.join()];
      if (share === undefined) asked.push(`share ${types.join()}`);
      return share;
    },
  };
  return { statistics, asked };
}

describe('access paths', () => {
  it('drives by the condition that picks documents by nature: ids, an equal value, references, before ranges and types', () => {
    const { statistics, asked } = known();
    expect(chooseAccessPath(query([type('post'), { kind: 'id', ids: ['a'] }]), statistics)).toEqual({ path: { kind: 'by-id', ids: ['a'] }, filter: [type('post')] });
    expect(chooseAccessPath(query([type('post'), equal('slug', '3x')]), statistics)).toEqual({
      path: { kind: 'value-range', path: 'slug', low: { value: '3x', inclusive: true }, high: { value: '3x', inclusive: true } },
      filter: [type('post')],
    });
    expect(chooseAccessPath(query([type('post'), { kind: 'references', ids: ['a'] }]), statistics)).toEqual({
      path: { kind: 'references', ids: ['a'] },
      filter: [type('post')],
    });
    expect(chooseAccessPath(query([type('post'), notDraft]), statistics)).toEqual({ path: { kind: 'by-type', types: ['post'] }, filter: [notDraft] });
    expect(chooseAccessPath(query([notDraft]), statistics)).toEqual({ path: { kind: 'full-scan' }, filter: [notDraft] });
    expect(chooseAccessPath(query([type('post'), { kind: 'none' }]), statistics)).toEqual({ path: { kind: 'none' }, filter: [type('post')] });
    // Nothing was to be counted: each choice was obvious.
    expect(asked).toEqual([]);
  });

  it('counts a type and a range when both could drive, and drives by the smaller below the cap', () => {
    const q = query([type('post'), above('views', '2a')]);
    // Not counted yet: both are asked for, and the type drives meanwhile.
    const unknown = known();
    expect(chooseAccessPath(q, unknown.statistics).path).toEqual({ kind: 'by-type', types: ['post'] });
    expect(unknown.asked).toEqual([`rows ${JSON.stringify(type('post'))}`, `rows ${JSON.stringify(above('views', '2a'))}`]);
    const fewViews = known([
      [type('post'), PROBE_CAP],
      [above('views', '2a'), 12],
    ]);
    expect(chooseAccessPath(q, fewViews.statistics)).toEqual({ path: { kind: 'value-range', path: 'views', low: { value: '2a', inclusive: false } }, filter: [type('post')] });
    const fewPosts = known([
      [type('post'), 12],
      [above('views', '2a'), 40],
    ]);
    expect(chooseAccessPath(q, fewPosts.statistics)).toEqual({ path: { kind: 'by-type', types: ['post'] }, filter: [above('views', '2a')] });
    // Both at the cap: neither is small, and the type drives.
    const many = known([
      [type('post'), PROBE_CAP],
      [above('views', '2a'), PROBE_CAP],
    ]);
    expect(chooseAccessPath(q, many.statistics).path.kind).toBe('by-type');
  });

  it('walks the ordered path for a window, unless a condition is small', () => {
    const latest = (where: DocumentCondition[]) => query(where, { order: { kind: 'value', path: 'day', descending: true }, limit: 20 });
    expect(chooseAccessPath(latest([type('event')]), known([[type('event'), PROBE_CAP]]).statistics)).toEqual({ path: { kind: 'value-walk', path: 'day' }, filter: [type('event')] });
    expect(chooseAccessPath(latest([type('event')]), known([[type('event'), 3]]).statistics)).toEqual({ path: { kind: 'by-type', types: ['event'] }, filter: [] });
    // A range on the walked path bounds the walk, and is no alternative to it: nothing is counted.
    const bounded = known();
    expect(chooseAccessPath(latest([above('day', '3b')]), bounded.statistics)).toEqual({ path: { kind: 'value-walk', path: 'day', low: { value: '3b', inclusive: false } }, filter: [] });
    expect(bounded.asked).toEqual([]);
    // An equal value picks few documents by nature: it drives, and its documents are sorted.
    expect(chooseAccessPath(latest([type('event'), equal('slug', '3x')]), known().statistics).path.kind).toBe('value-range');
    // Without a window the documents are sorted whatever their number: no walk.
    expect(chooseAccessPath(query([type('event')], { order: { kind: 'value', path: 'day', descending: true } }), known().statistics).path.kind).toBe('by-type');
  });

  it('walks a path after the last value read, for the pages of an aggregate in any order', () => {
    const page = query([{ kind: 'value', path: 'n' }], { order: { kind: 'value', path: 'n', descending: false }, limit: 100, after: { id: 'a', value: '2x' } });
    expect(chooseAccessPath(page, known().statistics)).toEqual({ path: { kind: 'value-walk', path: 'n' }, filter: [] });
  });

  it('leaves the type unchecked where only documents of that type have the driving path', () => {
    const events = [shape('e1', 'event', { starts: 's', day: 's' }), shape('m1', 'memo', { day: 's' })];
    const latest = (path: string) => query([type('event')], { order: { kind: 'value', path, descending: true }, limit: 2 });
    const statistics = known([[type('event'), PROBE_CAP]], {}, events).statistics;
    expect(chooseAccessPath(latest('starts'), statistics)).toEqual({ path: { kind: 'value-walk', path: 'starts' }, filter: [] });
    expect(chooseAccessPath(latest('day'), statistics)).toEqual({ path: { kind: 'value-walk', path: 'day' }, filter: [type('event')] });
    // Without the shapes, nothing is implied.
    expect(chooseAccessPath(latest('starts'), known([[type('event'), PROBE_CAP]]).statistics).filter).toEqual([type('event')]);
  });

  describe('long scans of a type that is most of the dataset', () => {
    const shapes = [shape('p1', 'post', { n: 's' }), shape('p2', 'post', { n: 's', label: 's' }), shape('a1', 'author', { name: 's' })];
    const values = { kind: 'values', paths: ['n'], type: false } as const;
    const page = (where: DocumentCondition[], more: Partial<DocumentQuery> = {}) => query(where, { limit: 10_000, after: { id: 'x' }, select: values, ...more });

    it('walks the entries table of its shapes after a first full page', () => {
      expect(chooseAccessPath(page([type('post'), notDraft]), known([], { post: 0.6 }, shapes).statistics)).toEqual({ path: { kind: 'entries-walk', shapes: ['p1', 'p2'] }, filter: [notDraft] });
      expect(chooseAccessPath(page([type('post')]), known([], { post: 0.4 }, shapes).statistics).path.kind).toBe('by-type');
      // Its share is asked for when not known.
      const unknown = known([], {}, shapes);
      expect(chooseAccessPath(page([type('post')]), unknown.statistics).path.kind).toBe('by-type');
      expect(unknown.asked).toEqual(['share post']);
    });

    it('keeps the type index for a first page, ids alone, or a condition another index answers', () => {
      const share = known([], { post: 0.9 }, shapes);
      expect(chooseAccessPath(page([type('post')], { after: undefined }), share.statistics).path.kind).toBe('by-type');
      expect(chooseAccessPath(page([type('post')], { select: { kind: 'values', paths: [], type: false } }), share.statistics).path.kind).toBe('by-type');
      expect(chooseAccessPath(page([type('post'), { kind: 'references', ids: ['a'] }]), share.statistics).path.kind).toBe('references');
      expect(share.asked).toEqual([]);
    });

    it('walks the entries table from the first page for a text, whose matches may be few and far between', () => {
      const contains: DocumentCondition = { kind: 'contains', path: 'title', texts: ['coffee'] };
      expect(chooseAccessPath(page([type('post'), contains], { after: undefined }), known([], { post: 0.9 }, shapes).statistics)).toEqual({
        path: { kind: 'entries-walk', shapes: ['p1', 'p2'] },
        filter: [contains],
      });
    });
  });
});
