import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DENSEST_JSON, heapBytesOf, parsedJsonBytes } from '../../src/json/json-weight.ts';

/** What a value is made of, counted from the value itself. */
function parts(value: unknown): { containers: number; valueStrings: number; commas: number; values: number; characters: number } {
  const counts = { containers: 0, valueStrings: 0, commas: 0, values: 0, characters: 0 };
  const visit = (current: unknown): void => {
    counts.values++;
    if (typeof current === 'string') {
      counts.valueStrings++;
      counts.characters += current.length;
    } else if (Array.isArray(current)) {
      counts.containers++;
      counts.commas += Math.max(0, current.length - 1);
      current.forEach(visit);
    } else if (typeof current === 'object' && current !== null) {
      counts.containers++;
      const values = Object.values(current);
      counts.commas += Math.max(0, values.length - 1);
      values.forEach(visit);
    }
  };
  visit(value);
  return counts;
}

// Strings full of what the scan must not be fooled by: quotes, backslashes, braces, colons.
const tricky = fc.string({ unit: fc.constantFrom('"', '\\', '{', '[', ':', ',', 'a', 'é', '\u2028') });
const json = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    tricky,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(tricky, tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('what a JSON text takes once parsed, estimated from the text', () => {
  it('counts objects and arrays, string values (not keys) and commas, outside strings', () => {
    fc.assert(
      fc.property(json, (value) => {
        const text = JSON.stringify(value);
        const { containers, valueStrings, commas } = parts(value);
        expect(parsedJsonBytes(text)).toBe(2 * text.length + 64 * containers + 16 * valueStrings + 4 * commas);
      }),
      { numRuns: 2000 },
    );
  });

  it('makes the densest text weigh about twenty times its length', () => {
    const text = JSON.stringify(new Array<object>(1000).fill({}));
    expect(parsedJsonBytes(text) / text.length).toBeGreaterThan(20);
  });

  it('survives a string left open', () => {
    expect(parsedJsonBytes('["abc')).toBe(2 * 5 + 64 + 16);
  });
});

describe('what a parsed JSON value takes', () => {
  it('counts 64 bytes per object or array, 8 per value, and each string with 16 more', () => {
    fc.assert(
      fc.property(json, (value) => {
        const { containers, valueStrings, values, characters } = parts(value);
        expect(heapBytesOf(value)).toBe(8 * values + 64 * containers + 16 * valueStrings + characters);
      }),
      { numRuns: 2000 },
    );
  });

  it('stops once past the bound it is given', () => {
    const value = new Array<object>(100_000).fill({});
    expect(heapBytesOf(value)).toBe(72 + 100_000 * 72);
    const stopped = heapBytesOf(value, 1000);
    expect(stopped).toBeGreaterThan(1000);
    expect(stopped).toBeLessThan(1000 + 200);
  });
});

describe('the densest JSON text', () => {
  it('never counts more than DENSEST_JSON per character', () => {
    for (const text of ['[]', '{}', '[[[[]]]]', JSON.stringify(new Array(100).fill({})), '[' + '[],'.repeat(99) + '[]]', '""', '[0,0,0]']) {
      expect(parsedJsonBytes(text)).toBeLessThanOrEqual(DENSEST_JSON * text.length);
    }
    fc.assert(fc.property(json, (value) => parsedJsonBytes(JSON.stringify(value)) <= DENSEST_JSON * JSON.stringify(value).length));
    // Nested arrays reach it.
    expect(parsedJsonBytes('[[[[]]]]')).toBe(DENSEST_JSON * 8);
  });
});
