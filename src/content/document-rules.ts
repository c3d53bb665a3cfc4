// What a document's content may not hold, on either engine:
// - more than 1,000 levels of objects and arrays, the document itself the first. SQLite keeps
//   documents as its binary JSON, which refuses deeper values; PostgreSQL would take them, but a
//   dataset must move between engines (export, import) and queries read the same on both;
// - text that is not Unicode: the character U+0000, or half of a surrogate pair, in a string or a
//   key. PostgreSQL's jsonb cannot hold either, and neither can be written as UTF-8;
// - more than 10,000 distinct attribute paths, the items of an array sharing theirs (`body[].text`
//   is one path however many blocks there are). Every path costs the write (index rows, the
//   shape, the change log) on the server's thread, while the writer is held: one object of
//   500,000 keys held the server for 6 s. Sanity allows 1,000 (8,000 on its largest plan);
// - more than MAX_DOCUMENT_HEAP_BYTES of heap once parsed: a sixteenth of the heap limit
//   (HEAP_LIMIT_MB; 32 MiB at its default of 512), and at least 17 MiB, so that the largest
//   mutation body (16 MiB) of text is always a document. Text is not what a document weighs:
//   2 MB of `[{},{},…]` parse into 45 MB, and transactions and imports read documents by the
//   hundred.

import { badRequest } from '../errors.ts';
import { heapShare } from '../heap-share.ts';
import { ownHeapBytes } from '../json/json-weight.ts';

const MIB = 1024 * 1024;

export const MAX_DOCUMENT_DEPTH = 1000;
export const MAX_DOCUMENT_PATHS = 10_000;
export const MAX_DOCUMENT_HEAP_BYTES = Math.max(17 * MIB, Math.floor(heapShare(1 / 16) / MIB) * MIB);

export const TOO_DEEP = `nests objects and arrays more than ${MAX_DOCUMENT_DEPTH} levels deep`;
export const NOT_TEXT = 'holds a string or key that is not Unicode text (the character U+0000, or half of a surrogate pair)';
export const TOO_MANY_PATHS = `has more than ${MAX_DOCUMENT_PATHS.toLocaleString('en')} distinct attribute paths (the items of an array share theirs)`;
export const TOO_HEAVY =
  `takes more than ${MAX_DOCUMENT_HEAP_BYTES / MIB} MiB of memory once parsed (64 bytes for each object or array, 8 for each value; ` +
  'a sixteenth of HEAP_LIMIT_MB): hold the content in fewer objects and arrays, or in several documents';

/** The attribute paths met so far below one path: a trie, so that no path is built as a string. */
type PathNode = Map<string, PathNode>;

function isText(value: string): boolean {
  return value.isWellFormed() && !value.includes('\u0000');
}

/**
 * A step of the walk: one value still to look at, or the items of an array from `next` on. Items
 * are taken one at a time: a stack of every item of an array of millions held more than the heap.
 */
type Pending = { value: unknown; depth: number; node: PathNode } | { items: readonly unknown[]; next: number; depth: number; node: PathNode };

/** Why a value cannot be stored as (part of) a document, or undefined when it can. */
export function unstorable(value: unknown): string | undefined {
  const checked = storageCheck(value);
  return 'problem' in checked ? checked.problem : undefined;
}

/** Why a value cannot be stored as (part of) a document; or, when it can, what it takes parsed (heapBytesOf). */
export function storageCheck(value: unknown): { problem: string } | { heapBytes: number } {
  let paths = 0;
  let heapBytes = 0;
  const below = (node: PathNode, step: string): PathNode => {
    let child = node.get(step);
    if (!child) {
      child = new Map();
      node.set(step, child);
      paths++;
    }
    return child;
  };
  // Iterative, so that no input can exhaust the stack. What it holds is bounded by the depth and
  // the paths: an object's keys are each a path of their own.
  const stack: Pending[] = [{ value, depth: 1, node: new Map() }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    let current: unknown;
    let depth: number;
    let node: PathNode;
    if ('items' in top) {
      if (top.next === top.items.length) {
        stack.pop();
        continue;
      }
      current = top.items[top.next++];
      ({ depth, node } = top);
    } else {
      stack.pop();
      ({ value: current, depth, node } = top);
    }
    heapBytes += ownHeapBytes(current);
    if (heapBytes > MAX_DOCUMENT_HEAP_BYTES) return { problem: TOO_HEAVY };
    if (typeof current === 'string') {
      if (!isText(current)) return { problem: NOT_TEXT };
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth > MAX_DOCUMENT_DEPTH) return { problem: TOO_DEEP };
    if (Array.isArray(current)) {
      if (current.length > 0) stack.push({ items: current, next: 0, depth: depth + 1, node: below(node, '[]') });
    } else {
      // Not Object.entries: an object of a million keys would be copied whole before the count stops it.
      for (const key in current) {
        if (!Object.hasOwn(current, key)) continue;
        if (!isText(key)) return { problem: NOT_TEXT };
        stack.push({ value: (current as Record<string, unknown>)[key], depth: depth + 1, node: below(node, key) });
        if (paths > MAX_DOCUMENT_PATHS) return { problem: TOO_MANY_PATHS };
      }
    }
  }
  return { heapBytes };
}

/**
 * Refuses (400) a value that cannot be stored, `at` naming it; else what it takes parsed. Documents
 * and patches are checked as they are parsed, before their transaction holds the writer, and
 * documents again as written.
 */
export function requireStorable(value: unknown, at: string): number {
  const checked = storageCheck(value);
  if ('problem' in checked) throw badRequest(`${at} ${checked.problem}`);
  return checked.heapBytes;
}
