import { applyPatches, type Patch as TextPatch } from '@sanity/diff-match-patch';
import { badRequest } from '../../errors.ts';
import type { JsonObject } from '../../store/index.ts';
import { isRecord, ownValue, setOwn } from '../../json/own-properties.ts';
import { parsePath, type PathSegment } from './path.ts';

/** The operations of one `patch` mutation, applied in Sanity's order. */
export interface PatchOperations {
  set?: JsonObject;
  setIfMissing?: JsonObject;
  unset?: string[];
  inc?: Record<string, number>;
  dec?: Record<string, number>;
  insert?: InsertOperation;
  /** Text patches (diff-match-patch's patch format, parsed: text-patches.ts) for string values, by path. */
  diffMatchPatch?: Record<string, TextPatch[]>;
}

export interface InsertOperation {
  position: 'before' | 'after' | 'replace';
  path: string;
  items: unknown[];
}

type Container = JsonObject | unknown[];

// The server owns these; `_type` may be set to another type but not removed.
const PROTECTED = new Set(['_id', '_rev', '_createdAt', '_updatedAt']);

function guard(path: string, segments: PathSegment[], removing: boolean): void {
  const first = segments[0];
  if (first?.kind !== 'field') return;
  if (PROTECTED.has(first.name)) throw badRequest(`"${path}": ${first.name} is set by the server and cannot be patched`);
  if (first.name === '_type' && (removing || segments.length > 1)) throw badRequest(`"${path}": _type cannot be removed`);
}

/** The value at a key or index of a container: own properties only (a document's `toString` is data, never a function). */
function valueAt(container: Container, at: string | number): unknown {
  return Array.isArray(container) ? container[at as number] : ownValue(container, at as string);
}

/** Stores a value at a key or index of a container, as an own property. */
function storeAt(container: Container, at: string | number, value: unknown): void {
  if (Array.isArray(container)) container[at as number] = value;
  else setOwn(container, at as string, value);
}

/** Resolves a segment against a container: the key or index to use, or undefined when nothing matches. */
function locate(container: Container, segment: PathSegment): string | number | undefined {
  if (segment.kind === 'field') return isRecord(container) ? segment.name : undefined;
  if (!Array.isArray(container)) return undefined;
  if (segment.kind === 'index') {
    const index = segment.index < 0 ? container.length + segment.index : segment.index;
    return index >= 0 && index < container.length ? index : undefined;
  }
  const index = container.findIndex((item) => isRecord(item) && ownValue(item, '_key') === segment.key);
  return index === -1 ? undefined : index;
}

/**
 * Walks to the parent of the last segment. With `create`, missing objects along field segments are
 * created (as Sanity's `set` does); array elements are never invented. Undefined: no match.
 */
function parentOf(root: JsonObject, segments: PathSegment[], create: boolean): Container | undefined {
  let current: Container = root;
  for (let i = 0; i < segments.length - 1; i++) {
    const segment = segments[i]!;
    const at = locate(current, segment);
    if (at === undefined) return undefined;
    let next = valueAt(current, at);
    if (next === undefined || next === null) {
      if (!create || segment.kind !== 'field') return undefined;
      next = {};
      storeAt(current, at, next);
    }
    if (typeof next !== 'object' || next === null) return undefined;
    current = next as Container;
  }
  return current;
}

function setAt(root: JsonObject, path: string, value: unknown, onlyIfMissing: boolean): void {
  const segments = parsePath(path);
  guard(path, segments, false);
  if (segments[0]?.kind === 'field' && segments[0].name === '_type' && (typeof value !== 'string' || value === '')) {
    throw badRequest('_type must be a non-empty string');
  }
  const parent = parentOf(root, segments, true);
  if (!parent) return;
  const last = segments[segments.length - 1]!;
  const at = last.kind === 'field' && isRecord(parent) ? last.name : locate(parent, last);
  if (at === undefined) return;
  if (onlyIfMissing && valueAt(parent, at) !== undefined) return;
  storeAt(parent, at, structuredClone(value));
}

/** The existing value a path selects, as its container and key; undefined when nothing matches. */
function existingAt(root: JsonObject, path: string, removing: boolean): { container: Container; at: string | number } | undefined {
  const segments = parsePath(path);
  guard(path, segments, removing);
  const container = parentOf(root, segments, false);
  if (!container) return undefined;
  const at = locate(container, segments[segments.length - 1]!);
  return at === undefined ? undefined : { container, at };
}

function unsetAt(root: JsonObject, path: string): void {
  const found = existingAt(root, path, true);
  if (!found) return;
  if (Array.isArray(found.container)) found.container.splice(found.at as number, 1);
  else delete found.container[found.at as string];
}

function addAt(root: JsonObject, path: string, amount: unknown, sign: 1 | -1, operation: string): void {
  if (typeof amount !== 'number' || !Number.isFinite(amount)) throw badRequest(`${operation} "${path}": the amount must be a number`);
  const found = existingAt(root, path, false);
  if (!found) return;
  const current = valueAt(found.container, found.at);
  // A missing value is left alone, as in Sanity: combine with setIfMissing to start from zero.
  if (current === undefined) return;
  if (typeof current !== 'number') throw badRequest(`${operation} "${path}": the current value is not a number`);
  const result = current + sign * amount;
  // JSON has no Infinity: it would be stored as null.
  if (!Number.isFinite(result)) throw badRequest(`${operation} "${path}": the result ${current} ${sign > 0 ? '+' : '-'} ${amount} is beyond the range of a number`);
  storeAt(found.container, found.at, result);
}

function insertAt(root: JsonObject, operation: InsertOperation): void {
  const segments = parsePath(operation.path);
  guard(operation.path, segments, false);
  const last = segments[segments.length - 1]!;
  if (last.kind === 'field') throw badRequest(`insert "${operation.path}": the path must select an array element, e.g. items[-1]`);
  const array = parentOf(root, segments, false);
  if (!Array.isArray(array)) return;
  let index = locate(array, last) as number | undefined;
  if (index === undefined) {
    // An empty array still takes items "after [-1]" (append) or "before [0]" (prepend).
    if (array.length !== 0 || last.kind !== 'index' || operation.position === 'replace') return;
    index = operation.position === 'after' ? -1 : 0;
  }
  const items = structuredClone(operation.items);
  if (operation.position === 'replace') array.splice(index, 1, ...items);
  else array.splice(operation.position === 'after' ? index + 1 : index, 0, ...items);
}

/** Applies a diff-match-patch text patch to the string at `path`; a path that holds no string is left alone. */
function patchTextAt(root: JsonObject, path: string, patches: TextPatch[]): void {
  const found = existingAt(root, path, false);
  if (!found) return;
  const current = valueAt(found.container, found.at);
  if (typeof current !== 'string') return;
  storeAt(found.container, found.at, applyPatches(patches, current)[0]);
}

/** Applies the operations to `document` in place, in Sanity's order: set, setIfMissing, unset, inc, dec, insert, diffMatchPatch. */
export function applyPatch(document: JsonObject, operations: PatchOperations): void {
  for (const [path, value] of Object.entries(operations.set ?? {})) setAt(document, path, value, false);
  for (const [path, value] of Object.entries(operations.setIfMissing ?? {})) setAt(document, path, value, true);
  for (const path of operations.unset ?? []) unsetAt(document, path);
  for (const [path, amount] of Object.entries(operations.inc ?? {})) addAt(document, path, amount, 1, 'inc');
  for (const [path, amount] of Object.entries(operations.dec ?? {})) addAt(document, path, amount, -1, 'dec');
  if (operations.insert) insertAt(document, operations.insert);
  for (const [path, patches] of Object.entries(operations.diffMatchPatch ?? {})) patchTextAt(document, path, patches);
}
