import { describe, expect, it } from 'vitest';
import { parsePath } from '../../src/content/patch/path.ts';
import { applyPatch } from '../../src/content/patch/apply-patch.ts';
import { AppError } from '../../src/errors.ts';

describe('patch paths', () => {
  it('parses fields, indexes, key selectors and quoted fields', () => {
    expect(parsePath('a.b')).toEqual([
      { kind: 'field', name: 'a' },
      { kind: 'field', name: 'b' },
    ]);
    expect(parsePath('body[_key=="k1"].children[-1].text')).toEqual([
      { kind: 'field', name: 'body' },
      { kind: 'key', key: 'k1' },
      { kind: 'field', name: 'children' },
      { kind: 'index', index: -1 },
      { kind: 'field', name: 'text' },
    ]);
    expect(parsePath("items[_key == 'a\\'b']")).toEqual([
      { kind: 'field', name: 'items' },
      { kind: 'key', key: "a'b" },
    ]);
    expect(parsePath('meta["odd key"]')).toEqual([
      { kind: 'field', name: 'meta' },
      { kind: 'field', name: 'odd key' },
    ]);
  });

  it.each(['', 'a.', '.a', 'a..b', 'a[', 'a[x]', 'a[_key=k]', '1abc', 'a b'])('refuses %j with a 400', (path) => {
    expect(() => parsePath(path)).toThrow(AppError);
  });
});

describe('applyPatch', () => {
  const base = () => ({
    _id: 'x',
    _type: 't',
    n: 1,
    nested: { deep: { v: 1 } },
    list: [{ _key: 'a', v: 1 }, { _key: 'b', v: 2 }, 'plain'],
  });

  it('creates missing objects along a set path but never invents array elements', () => {
    const doc: Record<string, unknown> = base();
    applyPatch(doc, { set: { 'x.y.z': 1, 'list[9].v': 5, 'list[_key=="zz"].v': 5 } });
    expect(doc.x).toEqual({ y: { z: 1 } });
    expect(doc.list).toEqual(base().list);
  });

  it('does not overwrite with setIfMissing', () => {
    const doc: Record<string, unknown> = base();
    applyPatch(doc, { setIfMissing: { n: 5, m: 6, 'nested.deep.v': 9, 'nested.deep.w': 9 } });
    expect(doc).toMatchObject({ n: 1, m: 6, nested: { deep: { v: 1, w: 9 } } });
  });

  it('unsets fields and array elements, ignoring missing paths', () => {
    const doc: Record<string, unknown> = base();
    applyPatch(doc, { unset: ['n', 'list[_key=="a"]', 'nope.nothing', 'list[5]'] });
    expect(doc.n).toBeUndefined();
    expect(doc.list).toEqual([{ _key: 'b', v: 2 }, 'plain']);
  });

  it('increments through key selectors and leaves missing numbers alone', () => {
    const doc: Record<string, unknown> = base();
    applyPatch(doc, { inc: { 'list[_key=="b"].v': 10, missing: 1 }, dec: { n: 3 } });
    expect(doc).toMatchObject({ n: -2, list: [{ v: 1 }, { v: 12 }, 'plain'] });
    expect(doc.missing).toBeUndefined();
  });

  it('does not share structure with the values it sets', () => {
    const value = { a: [1] };
    const doc: Record<string, unknown> = base();
    applyPatch(doc, { set: { copy: value } });
    value.a.push(2);
    expect(doc.copy).toEqual({ a: [1] });
  });

  it('inserts relative to keyed and negative positions', () => {
    const doc: Record<string, unknown> = base();
    applyPatch(doc, { insert: { position: 'after', path: 'list[_key=="a"]', items: ['after-a'] } });
    applyPatch(doc, { insert: { position: 'before', path: 'list[-1]', items: ['before-last'] } });
    expect(doc.list).toEqual([{ _key: 'a', v: 1 }, 'after-a', { _key: 'b', v: 2 }, 'before-last', 'plain']);
  });

  it('refuses server-owned fields and inc on non-numbers', () => {
    expect(() => applyPatch(base(), { set: { _rev: 'r' } })).toThrow(/_rev/);
    expect(() => applyPatch(base(), { unset: ['_createdAt'] })).toThrow(/_createdAt/);
    expect(() => applyPatch(base(), { inc: { nested: 1 } })).toThrow(/not a number/);
  });
});
