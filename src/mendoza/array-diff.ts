import { Diff, writeAppendValue, writeElementChange, type DiffResult } from './diff.ts';
import { deepEqual, digits, fieldOf, hashValue, isObject, jsonSizeAtMost } from './json-values.ts';
import { Op } from './opcodes.ts';
import { enter, type EntryKind, type PatchWriter } from './patch-writer.ts';

/**
 * Writes `right` from `left` into a blank array: runs of elements found unchanged in the input
 * (the common prefix and suffix, then elements matched by `_key` or by value, wherever they
 * moved) are appended as slices; an element whose `_key` the input has, or failing that one
 * standing where an unmatched input element stood, is diffed from it; the rest are literals.
 *
 * Arrays always start blank: mendoza-js's incremental patcher (Studio's history) does not copy an
 * array it is asked to copy and append to, so appending to a copy would change the previous
 * version it keeps. Sanity's encoder never does it either.
 */
export function writeArrayDiff(w: PatchWriter, left: unknown[], right: unknown[], kind: EntryKind, index: number): DiffResult {
  const leftLength = left.length;
  const rightLength = right.length;
  let prefix = 0;
  while (prefix < leftLength && prefix < rightLength && deepEqual(left[prefix], right[prefix])) prefix++;
  if (prefix === leftLength && prefix === rightLength) return Diff.Unchanged;
  // [] as a literal is shortest, and a blank output with nothing written would become null.
  if (rightLength === 0) return Diff.Literal;
  let suffix = 0;
  while (suffix < leftLength - prefix && suffix < rightLength - prefix && deepEqual(left[leftLength - 1 - suffix], right[rightLength - 1 - suffix])) suffix++;

  // For each output element: the input element it equals, or -1; the one it is diffed from, or -1.
  const copies = new Int32Array(rightLength).fill(-1);
  const edits = new Int32Array(rightLength).fill(-1);
  for (let i = 0; i < prefix; i++) copies[i] = i;
  for (let t = 1; t <= suffix; t++) copies[rightLength - t] = leftLength - t;
  if (prefix + suffix < rightLength) {
    const middle = { left, right, start: prefix, leftEnd: leftLength - suffix, rightEnd: rightLength - suffix, copies, edits };
    matchMiddle(middle);
    pairLeftovers(middle);
  }

  enter(w, kind, index, false);
  for (let i = 0; i < rightLength; ) {
    const from = copies[i] as number;
    if (from >= 0) {
      const start = i;
      let to = from + 1;
      for (i++; i < rightLength && copies[i] === to; i++) to++;
      writeSlice(w, right, start, from, to);
    } else {
      const source = edits[i] as number;
      if (source >= 0) writeElementChange(w, left[source], right[i], source);
      else writeAppendValue(w, right[i]);
      i++;
    }
  }
  return Diff.Written;
}

type Middle = {
  left: unknown[];
  right: unknown[];
  /** The first index after the common prefix, in both arrays. */
  start: number;
  /** Where the common suffix starts in each array. */
  leftEnd: number;
  rightEnd: number;
  copies: Int32Array;
  edits: Int32Array;
};

/** Matches output elements between prefix and suffix with input elements there, by key or value. */
function matchMiddle({ left, right, start, leftEnd, rightEnd, copies, edits }: Middle): void {
  let byKey: Map<string, number> | undefined;
  let byHash: Map<number, number[]> | undefined;
  let previous = start - 1;
  for (let i = start; i < rightEnd; i++) {
    const element = right[i];
    const key = keyOf(element);
    if (key !== undefined) {
      byKey ??= keyIndex(left, start, leftEnd);
      const source = byKey.get(key);
      // A keyed element with a new key equals nothing in the input (keys are unique).
      if (source === undefined) continue;
      if (deepEqual(left[source], element)) copies[i] = source;
      else edits[i] = source;
      previous = source;
      continue;
    }
    byHash ??= hashIndex(left, start, leftEnd);
    const candidates = byHash.get(hashValue(element));
    if (candidates === undefined) continue;
    // Prefer the input element right after the previous match: it extends a slice.
    // Candidates are in ascending order: rank 0 extends the slice, 1 comes later, 2 earlier.
    let found = -1;
    let foundRank = 3;
    for (const candidate of candidates) {
      const rank = candidate === previous + 1 ? 0 : candidate > previous ? 1 : 2;
      if (rank >= foundRank || !deepEqual(left[candidate], element)) continue;
      found = candidate;
      foundRank = rank;
      if (rank === 0) break;
    }
    if (found >= 0) {
      copies[i] = found;
      previous = found;
    }
  }
}

/**
 * Output elements still unmatched are diffed, in order, from input elements of the same type that
 * nothing else uses, taken between the input positions of the matched neighbours: an element
 * edited in place (a changed span text, a changed tag) is a small diff, not a literal. Whether
 * the diff is kept or the literal sent is decided by their sizes (writeElementChange).
 */
function pairLeftovers({ left, right, start, leftEnd, rightEnd, copies, edits }: Middle): void {
  const used = new Uint8Array(leftEnd);
  for (let i = start; i < rightEnd; i++) {
    const source = Math.max(copies[i] as number, edits[i] as number);
    if (source >= start && source < leftEnd) used[source] = 1;
  }
  const sourceOf = (i: number): number => Math.max(copies[i] as number, edits[i] as number);
  for (let i = start; i < rightEnd; ) {
    if (sourceOf(i) >= 0) {
      i++;
      continue;
    }
    const runStart = i;
    while (i < rightEnd && sourceOf(i) < 0) i++;
    const before = runStart > 0 ? sourceOf(runStart - 1) : -1;
    const after = i < right.length ? sourceOf(i) : left.length;
    let candidate = Math.max(before + 1, start);
    const end = after > before ? Math.min(after, leftEnd) : leftEnd;
    for (let r = runStart; r < i; r++) {
      while (candidate < end && used[candidate]) candidate++;
      if (candidate < end && diffable(left[candidate], right[r])) {
        edits[r] = candidate;
        used[candidate] = 1;
        candidate++;
        continue;
      }
      // Otherwise the input element at the same position, even if used elsewhere (an input
      // element can be read any number of times): a new block made from an old one shares its
      // type, style, marks... (Sanity's encoder tries the same position too).
      const same = Math.min(r, left.length - 1);
      if (diffable(left[same], right[r])) edits[r] = same;
    }
  }
}

/** Whether a diff of the two could be shorter than a literal: both strings, arrays or objects. */
function diffable(left: unknown, right: unknown): boolean {
  if (typeof left === 'string') return typeof right === 'string';
  if (Array.isArray(left)) return Array.isArray(right);
  return isObject(left) && isObject(right);
}

/** Input elements from..to (exclusive) are appended as a slice, or as literals if shorter. */
function writeSlice(w: PatchWriter, right: unknown[], start: number, from: number, to: number): void {
  const sliceSize = 3 + digits(from) + 1 + digits(to) + 1;
  let literalSize = 0;
  for (let i = 0; i < to - from && literalSize < sliceSize; i++) literalSize += 3 + jsonSizeAtMost(right[start + i], sliceSize);
  if (literalSize < sliceSize) {
    for (let i = 0; i < to - from; i++) writeAppendValue(w, right[start + i]);
    return;
  }
  w.op(Op.ArrayAppendSlice);
  w.int(from);
  w.int(to);
}

function keyOf(element: unknown): string | undefined {
  if (!isObject(element)) return undefined;
  const key = fieldOf(element, '_key');
  return typeof key === 'string' ? key : undefined;
}

function keyIndex(left: unknown[], from: number, to: number): Map<string, number> {
  const index = new Map<string, number>();
  for (let j = from; j < to; j++) {
    const key = keyOf(left[j]);
    if (key !== undefined && !index.has(key)) index.set(key, j);
  }
  return index;
}

function hashIndex(left: unknown[], from: number, to: number): Map<number, number[]> {
  const index = new Map<number, number[]>();
  for (let j = from; j < to; j++) {
    const hash = hashValue(left[j]);
    const list = index.get(hash);
    if (list === undefined) index.set(hash, [j]);
    else list.push(j);
  }
  return index;
}
