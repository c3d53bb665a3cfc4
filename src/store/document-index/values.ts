// Scalars as text whose byte order (SQLite's BINARY collation, PostgreSQL's COLLATE "C") is GROQ's
// order: a rank character (numbers 2 < strings 3 < booleans 4, as order() ranks them), then
// - numbers: the IEEE 754 bits made sortable (sign flipped, negatives inverted), 16 hex digits;
// - strings: the text itself, whole when it is short and well-formed; otherwise a prefix followed
//   by U+FFFF, which no whole string contains (so equality with a whole string stays exact);
// - booleans: 0 or 1.
// Byte order is code point order while GROQ compares UTF-16 code units; the two agree whenever one
// side has no code unit at or above U+D800, which is why bounds and sort keys must pass
// `isOrderSafeString` for a range or an ORDER BY on the index to be exact.

export const RANK_NUMBER = '2';
export const RANK_STRING = '3';
export const RANK_BOOLEAN = '4';
/** One past the last rank: `value < RANK_END` selects every scalar. */
export const RANK_END = '5';
/** Strings longer than this (UTF-16 code units) are stored as a prefix. */
export const MAX_INDEXED_STRING = 160;
export const TRUNCATED = '\uffff';

const bits = new DataView(new ArrayBuffer(8));

function hex8(n: number): string {
  return n.toString(16).padStart(8, '0');
}

function encodeNumber(n: number): string {
  bits.setFloat64(0, n === 0 ? 0 : n); // -0 equals 0 in GROQ
  let hi = bits.getUint32(0);
  let lo = bits.getUint32(4);
  if (hi >= 0x80000000) {
    hi = ~hi >>> 0;
    lo = ~lo >>> 0;
  } else {
    hi = (hi + 0x80000000) >>> 0;
  }
  return RANK_NUMBER + hex8(hi) + hex8(lo);
}

function decodeNumber(encoded: string): number {
  let hi = Number.parseInt(encoded.slice(1, 9), 16);
  let lo = Number.parseInt(encoded.slice(9, 17), 16);
  if (hi >= 0x80000000) {
    hi -= 0x80000000;
  } else {
    hi = ~hi >>> 0;
    lo = ~lo >>> 0;
  }
  bits.setUint32(0, hi);
  bits.setUint32(4, lo);
  return bits.getFloat64(0);
}

/** The length of a string if the index can hold it whole, else where its stored prefix ends. */
function storableLength(text: string): number {
  // The first character a whole string cannot hold: a lone surrogate, the marker itself, or U+0000
  // (which no document holds, and PostgreSQL's text cannot carry).
  let bad = text.length;
  const scan = Math.min(text.length, MAX_INDEXED_STRING);
  for (let i = 0; i < scan; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 && c !== 0) continue;
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    } else if (c > 0xdfff && c !== 0xffff) {
      continue;
    }
    bad = i;
    break;
  }
  if (bad === text.length && text.length <= MAX_INDEXED_STRING) return text.length;
  let cut = Math.min(bad, MAX_INDEXED_STRING - 1);
  // Never split a surrogate pair.
  const last = text.charCodeAt(cut - 1);
  if (cut > 0 && last >= 0xd800 && last <= 0xdbff) cut--;
  return cut;
}

export function encodeScalar(value: string | number | boolean): string {
  if (typeof value === 'number') return encodeNumber(value);
  if (typeof value === 'boolean') return RANK_BOOLEAN + (value ? '1' : '0');
  const length = storableLength(value);
  return length === value.length ? RANK_STRING + value : RANK_STRING + value.slice(0, length) + TRUNCATED;
}

/** The scalar an encoded value stands for, or undefined when it is a truncated string. */
export function decodeScalar(encoded: string): string | number | boolean | undefined {
  switch (encoded[0]) {
    case RANK_NUMBER:
      return decodeNumber(encoded);
    case RANK_BOOLEAN:
      return encoded[1] === '1';
    default:
      return encoded.endsWith(TRUNCATED) ? undefined : encoded.slice(1);
  }
}

/** The number an encoded value stands for; null for a value of another kind (the value rows' `num`). */
export function encodedNumber(encoded: string): number | null {
  return encoded[0] === RANK_NUMBER ? decodeNumber(encoded) : null;
}

/** A string the index holds whole, so that equality with it is exact. */
export function isWholeString(text: string): boolean {
  return storableLength(text) === text.length;
}

/**
 * A string whose order against every indexed value is GROQ's: held whole, short enough that a
 * truncated value's marker cannot decide a comparison with it, below the surrogates, and without U+0000.
 */
export function isOrderSafeString(text: string): boolean {
  if (text.length > MAX_INDEXED_STRING - 2) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 || c === 0) return false;
  }
  return true;
}
