import { BACKSLASH, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './json-characters.ts';

/**
 * The most parsedJsonBytes counts for one character of text: arrays nested in arrays, each 64
 * bytes for its two characters, with the text twice over. A text of n characters never counts more
 * than n times this.
 */
export const DENSEST_JSON = 34;

/**
 * About how many bytes of heap `JSON.parse(text)` makes, read from the text alone (it is parsed
 * only once it is known to fit). The text's length says little: V8 gives every object about
 * 56 bytes and every array about 48, so 16 MB of `[{},{},…]` parse into 290 MB, more than half of
 * the default heap. Counted: the text twice over (the strings' characters, in one or two bytes
 * each), 64 bytes per object or array, 16 per string value (keys are shared between objects) and
 * 4 per comma (an array's slot: a digit and a comma parse into 8 bytes). Strings' contents are
 * skipped, so braces inside text count for nothing.
 */
export function parsedJsonBytes(text: string): number {
  let containers = 0;
  let valueStrings = 0;
  let commas = 0;
  const length = text.length;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i + 1);
      // A key is followed by its colon (JSON.stringify writes no space between; a spaced key counts as a value).
      if (text.charCodeAt(end + 1) !== COLON) valueStrings++;
      i = end + 1;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) containers++;
    else if (c === COMMA) commas++;
    i++;
  }
  return 2 * length + 64 * containers + 16 * valueStrings + 4 * commas;
}

/** The index of the quote that ends the string whose text starts at `from` (the text's length if none does). */
function closingQuote(text: string, from: number): number {
  let at = from;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    at = quote + 1;
  }
}


/**
 * About how many bytes of heap a parsed JSON value holds: 64 per object or array, 8 per value
 * besides, and a string's characters with 16 more. Walked an array item at a time; stops as soon
 * as the count passes `stopAbove` (the count it returns is then only known to be larger).
 */
export function heapBytesOf(value: unknown, stopAbove = Infinity): number {
  let bytes = 0;
  const pending: { items: readonly unknown[]; next: number }[] = [{ items: [value], next: 0 }];
  while (pending.length > 0 && bytes <= stopAbove) {
    const top = pending[pending.length - 1]!;
    if (top.next === top.items.length) {
      pending.pop();
      continue;
    }
    const current = top.items[top.next++];
    bytes += ownHeapBytes(current);
    if (typeof current === 'object' && current !== null) pending.push({ items: Array.isArray(current) ? current : Object.values(current), next: 0 });
  }
  return bytes;
}

/** What a parsed JSON value takes itself, not counting what it holds (heapBytesOf). */
export function ownHeapBytes(value: unknown): number {
  if (typeof value === 'string') return 8 + 16 + value.length;
  return typeof value === 'object' && value !== null ? 8 + 64 : 8;
}
