// The document index's encoding must order and compare values exactly as GROQ does, wherever the
// planner relies on it (equality with whole strings, ranges and sort keys that are order-safe),
// and its references must be GROQ's references().
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compare, orderCompare } from '../../src/groq/evaluator/compare.ts';
import { hasReference, referencedIds } from '../../src/groq/functions/references.ts';
import { indexEntries, isIndexedPath, parseShapePaths } from '../../src/store/document-index/entries.ts';
import { decodeScalar, encodeScalar, isOrderSafeString, isWholeString, MAX_INDEXED_STRING } from '../../src/store/document-index/values.ts';

/** Byte order of the UTF-8 text: SQLite's BINARY collation and PostgreSQL's COLLATE "C". */
const bytes = (a: string, b: string) => Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
const sign = (n: number | null) => (n === null ? null : Math.sign(n));

const awkward = fc.constantFrom('a', 'z', 'é', '\uE000', '\uFFFF', '\uD800', '\uDC00', '\u{1F600}', '\u{10FFFF}', '\u0000', ' ');
const text = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.array(awkward, { maxLength: 6 }).map((parts) => parts.join('')),
  fc.tuple(fc.string({ minLength: MAX_INDEXED_STRING - 3, maxLength: MAX_INDEXED_STRING + 3 }), fc.array(awkward, { maxLength: 3 })).map(([a, b]) => a + b.join('')),
  fc.tuple(fc.constantFrom('x'.repeat(MAX_INDEXED_STRING - 2), 'x'.repeat(MAX_INDEXED_STRING)), awkward).map(([a, b]) => a + b),
);
/**
 * Strings a document can hold in the index: no U+0000, which writes refuse. A query's constant may
 * hold one; the index treats it as a string it cannot hold whole (PostgreSQL's text cannot carry
 * it), so no equality, range or order is read from the index for it (hostile-inputs.test.ts asks such queries).
 */
const indexedText = text.filter((value) => !value.includes('\u0000'));
const number = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.constantFrom(0, -0, 1e-300, -1e300, 2 ** 53 + 2));

describe('document index: value encoding', () => {
  it('orders numbers as GROQ does, -0 equal to 0', () => {
    fc.assert(fc.property(number, number, (a, b) => bytes(encodeScalar(a), encodeScalar(b)) === sign(compare(a, b))));
  });

  it('orders any indexed string against an order-safe bound as GROQ does, truncated or not', () => {
    fc.assert(
      fc.property(indexedText, text.filter(isOrderSafeString), (value, bound) => bytes(encodeScalar(value), encodeScalar(bound)) === sign(compare(value, bound))),
      { numRuns: 3000 },
    );
  });

  it('equals a whole string exactly when the strings are equal', () => {
    fc.assert(fc.property(text, text.filter(isWholeString), (value, whole) => (encodeScalar(value) === encodeScalar(whole)) === (value === whole)), { numRuns: 3000 });
    expect(isWholeString('x'.repeat(MAX_INDEXED_STRING + 1))).toBe(false);
    expect(isWholeString('a\uD800')).toBe(false);
    expect(isWholeString('a\u0000b')).toBe(false);
    expect(isOrderSafeString('a\u0000b')).toBe(false);
  });

  it('ranks numbers before strings before booleans, as order() does', () => {
    const values = [true, 'a', 1, false, '', -5];
    const byIndex = [...values].sort((a, b) => bytes(encodeScalar(a), encodeScalar(b)));
    expect(byIndex).toEqual([...values].sort(orderCompare));
  });

  it('decodes what it holds whole, and says when a string was cut', () => {
    fc.assert(fc.property(fc.oneof(number, fc.boolean()), (value) => Object.is(decodeScalar(encodeScalar(value)), Object.is(value, -0) ? 0 : value)));
    fc.assert(fc.property(text, (value) => decodeScalar(encodeScalar(value)) === (isWholeString(value) ? value : undefined)));
  });
});

describe('document index: entries of a document', () => {
  it('finds the references GROQ finds', () => {
    // GROQ's rule, written recursively: an object with a truthy _ref is a reference, and its other attributes are not searched.
    const model = (value: unknown, into: Set<string>): Set<string> => {
      if (Array.isArray(value)) for (const item of value) model(item, into);
      else if (typeof value === 'object' && value !== null) {
        const ref = (value as { _ref?: unknown })._ref;
        if (ref) {
          if (typeof ref === 'string') into.add(ref);
        } else for (const item of Object.values(value)) model(item, into);
      }
      return into;
    };
    const ref = fc.oneof(fc.constantFrom('a', 'b', ''), fc.constant(0), fc.constant(true)).map((id) => ({ _ref: id }));
    const value = fc.letrec<{ v: unknown }>((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), ref, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('x', '_ref', 'y'), tie('v'), { maxKeys: 3 })),
    })).v;
    fc.assert(
      fc.property(value, (v) => {
        const expected = model(v, new Set());
        const document = { _id: 'd', _type: 't', v };
        expect(indexEntries(document).references.sort()).toEqual([...model(document, new Set())].sort());
        expect([...referencedIds(v)].sort()).toEqual([...expected].sort());
        for (const id of ['a', 'b', '']) expect(hasReference(v, new Set([id]))).toBe(expected.has(id));
      }),
      { numRuns: 2000 },
    );
  });

  it('indexes scalars reachable through objects, with the shape of the document', () => {
    const entries = indexEntries({
      _id: 'p1',
      _type: 'post',
      _rev: 'r1',
      title: { _type: 'localeString', en: 'Hi', nb: null },
      views: 3,
      tags: ['a'],
      'dotted.key': 1,
      'quoted"key': 2,
      author: { _ref: 'a1', _key: 'k' },
      body: [{ _ref: 'a2' }],
    });
    expect(Object.fromEntries(entries.values)).toEqual({
      'title.en': encodeScalar('Hi'),
      views: encodeScalar(3),
      'author._ref': encodeScalar('a1'),
    });
    expect([...parseShapePaths(entries.shape.paths)]).toEqual([
      ['author', 'o'],
      ['author._ref', 's'],
      ['body', 'a'],
      ['tags', 'a'],
      ['title', 'o'],
      ['title.en', 's'],
      ['views', 's'],
    ]);
    expect(entries.references.sort()).toEqual(['a1', 'a2']);
    // The same layout, another type: another shape.
    expect(indexEntries({ _id: 'x', _type: 'page', title: { en: 'x' } }).shape.hash).not.toBe(indexEntries({ _id: 'y', _type: 'post', title: { en: 'y' } }).shape.hash);
    expect(isIndexedPath(['title', '_type'])).toBe(false);
    expect(isIndexedPath(['_rev'])).toBe(false);
    expect(isIndexedPath(['title', 'en'])).toBe(true);
    // Names a JSON path would have to escape are left to in-memory evaluation.
    expect(isIndexedPath(['a\\b'])).toBe(false);
    expect(isIndexedPath(['quoted"key'])).toBe(false);
  });
});
