// `match` on a string is answered without cutting the text into tokens (evaluator/match.ts): a
// regular expression per term finds a whole token. It must agree with the definition: the text
// (its edge dots removed) cut into tokens at the separators, some token matching each term whole.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matches } from '../../src/groq/evaluator/match.ts';

const SEPARATOR = /[!@#$%^&*(),\\/?";:{}|[\]+<>\s-]/;
const TERM_SEPARATOR = /[!@#$%^&(),\\/?";:{}|[\]+<>\s-]/;
const stripDots = (text: string) => text.replace(/\b\.+|\.+\b/g, '');
const split = (text: string, separator: RegExp) => [...text].reduce<string[]>((parts, c) => (separator.test(c) ? [...parts, ''] : [...parts.slice(0, -1), parts.at(-1)! + c]), ['']).filter(Boolean);

/** The definition, one token at a time. */
function byTokens(text: string, pattern: string): boolean {
  const tokens = split(stripDots(text), SEPARATOR);
  const terms = split(stripDots(pattern), TERM_SEPARATOR);
  if (terms.length === 0 || tokens.length === 0) return false;
  return terms.every((term) => {
    const token = new RegExp(`^${term.replace(/\./g, '\\.').replace(/\*/g, '.*')}$`, 'i');
    return tokens.some((t) => token.test(t));
  });
}

// Few characters, so that tokens and terms meet often: letters in both cases, non-ASCII ones
// (Greek final sigma, the Kelvin sign, dotted I), digits, dots, separators, `*`, line breaks.
const char = fc.constantFrom(...'aAbBkK\u212Aσς΢Σ\u0130i1.._-* \n\u2028,"\'é');
const text = fc.array(char, { maxLength: 14 }).map((chars) => chars.join(''));
const pattern = fc.array(char, { maxLength: 5 }).map((chars) => chars.join(''));

describe('match on a string', () => {
  it('agrees with matching token by token', () => {
    fc.assert(
      fc.property(text, pattern, (t, p) => {
        expect(matches(t, p)).toBe(byTokens(t, p));
      }),
      { numRuns: 20000 },
    );
  });

  it.each([
    ['', '*', false],
    ['  ', '*', false],
    ['x', '*', true],
    ['coffee-time', 'coffee', true],
    ['coffeetime', 'coffee', false],
    ['Café au lait', 'CAFÉ', true],
    ['a*b', 'a', true],
    ['ab', 'a*b', true],
    ['a-b', 'a*b', false],
  ])('%j match %j is %s', (t, p, expected) => {
    expect(matches(t, p)).toBe(expected);
  });
});
