// Property tests: mendoza-js (both appliers) must turn a into b with encode(a, b), and b into a
// with encode(b, a), for random pairs and for small edits of generated documents; and a small
// edit must not re-send what it left unchanged.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { effects, encode } from '../../src/mendoza/index.ts';
import { applyEdits, edit, EDIT_KINDS, jsonValue, portableText, prose, sanityDocument, type Edit } from './arbitraries.ts';
import { expectApplies, expectRoundTrip } from './roundtrip.ts';

const RUNS = { numRuns: 1000 };
/** Documents are larger: fewer of them keep the file at a few seconds. */
const DOCUMENT_RUNS = { numRuns: 500 };

describe('encode (properties)', () => {
  it('round-trips random JSON values', () => {
    fc.assert(fc.property(jsonValue(), jsonValue(), (a, b) => void expectRoundTrip(a, b)), RUNS);
  });

  it('round-trips a value and a few random edits of it', () => {
    fc.assert(fc.property(jsonValue(5), fc.array(edit, { minLength: 1, maxLength: 3 }), (a, edits) => {
      expectRoundTrip(a, applyEdits(a, edits));
    }), RUNS);
  });

  it('round-trips a document and small edits of it, and their effects', () => {
    fc.assert(fc.property(sanityDocument, fc.array(edit, { minLength: 1, maxLength: 3 }), (a, edits) => {
      const b = applyEdits(a, edits);
      expectRoundTrip(a, b);
      const { apply, revert } = effects(a, b);
      const withoutRev = (doc: unknown): unknown => {
        if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return doc;
        const { _rev: _omitted, ...rest } = doc as Record<string, unknown>;
        return rest;
      };
      expectApplies(withoutRev(a), apply, withoutRev(b));
      expectApplies(withoutRev(b), revert, withoutRev(a));
    }), DOCUMENT_RUNS);
  });

  it('round-trips long strings edited anywhere', () => {
    const text = fc.oneof(prose, fc.string({ unit: 'grapheme', minLength: 20, maxLength: 60 }), fc.string({ unit: 'binary', minLength: 20, maxLength: 60 }));
    fc.assert(fc.property(text, fc.nat(), fc.nat(5), fc.oneof(prose, fc.string({ unit: 'binary', maxLength: 4 })), (a, at, remove, insert) => {
      const points = Array.from(a);
      points.splice(at % (points.length + 1), remove, insert);
      expectRoundTrip(a, points.join(''));
      expectRoundTrip({ text: a }, { text: points.join('') });
    }), RUNS);
  });

  it('round-trips Portable Text bodies reordered, with blocks added and removed', () => {
    fc.assert(fc.property(portableText, fc.array(fc.nat(), { maxLength: 12 }), (a, order) => {
      const b = order.map((n) => a[n % Math.max(a.length, 1)]).filter((block) => block !== undefined);
      expectRoundTrip({ body: a }, { body: b });
    }), DOCUMENT_RUNS);
  });

  it('does not re-send a text a single edit left unchanged', () => {
    const kinds: readonly string[] = EDIT_KINDS.filter((kind) => kind !== 'span-split');
    fc.assert(fc.property(sanityDocument, edit.filter((e) => kinds.includes(e.kind)), (a, e) => {
      const b = applyEdits(a, [e]);
      const kept = keptTexts(a, b, e);
      for (const patch of [encode(a, b), encode(b, a)]) {
        const sent = JSON.stringify(patch);
        for (const text of kept) expect(sent).not.toContain(JSON.stringify(text));
      }
    }), DOCUMENT_RUNS);
  });
});

/**
 * Texts of 16 characters or more that appear once in `a` and are still in `b`, minus any the
 * edit itself brought: a minimal patch copies them, it does not send them.
 */
function keptTexts(a: unknown, b: unknown, e: Edit): string[] {
  const counts = new Map<string, number>();
  for (const text of strings(a)) counts.set(text, (counts.get(text) ?? 0) + 1);
  const inB = new Set(strings(b));
  const brought = new Set([...strings(e.value), e.text]);
  return [...counts].filter(([text, count]) => count === 1 && text.length >= 16 && inB.has(text) && !brought.has(text)).map(([text]) => text);
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(strings);
}
