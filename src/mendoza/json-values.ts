// Helpers over plain JSON values (as JSON.parse gives them). A field whose value is undefined is
// treated as absent everywhere, as JSON.stringify does: the patch is applied by a reader that
// received the document as JSON, so field indices must count only the fields JSON would keep.

export type JsonObject = { [key: string]: unknown };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Own keys whose values are not undefined, in their own order. */
export function definedKeys(object: JsonObject): string[] {
  const keys = Object.keys(object);
  for (const key of keys) {
    if (object[key] === undefined) return keys.filter((k) => object[k] !== undefined);
  }
  return keys;
}

/** The value of an own field, or undefined (never an inherited property such as `constructor`). */
export function fieldOf(object: JsonObject, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Deep equality of JSON values; object key order does not matter. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as JsonObject;
  const right = b as JsonObject;
  let count = 0;
  for (const key of Object.keys(left)) {
    const value = left[key];
    if (value === undefined) continue;
    count++;
    // right[key] could only be inherited for __proto__ (an object); other inherited properties
    // (constructor, toString...) are functions, equal to no JSON value.
    const other = key === '__proto__' ? fieldOf(right, key) : right[key];
    if (!deepEqual(value, other)) return false;
  }
  for (const key of Object.keys(right)) if (right[key] !== undefined) count--;
  return count === 0;
}

/**
 * About the length of `value` as JSON text, counted exactly up to `limit`: once past it the
 * count stops and some number above `limit` is returned. Strings count their UTF-16 length plus
 * quotes (escapes are ignored): this is a cost estimate for choosing between encodings, not a
 * serializer.
 */
export function jsonSizeAtMost(value: unknown, limit: number): number {
  switch (typeof value) {
    case 'string':
      return value.length + 2;
    case 'number':
      return Number.isFinite(value) ? numberLength(value) : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'object':
      break;
    default:
      return 4; // undefined (and anything else JSON cannot hold) becomes null
  }
  if (value === null) return 4;
  let size = 1;
  if (Array.isArray(value)) {
    for (const element of value) {
      size += 1 + jsonSizeAtMost(element, limit - size);
      if (size > limit) return size;
    }
    return value.length === 0 ? 2 : size;
  }
  const object = value as JsonObject;
  for (const key of Object.keys(object)) {
    const field = object[key];
    if (field === undefined) continue;
    size += key.length + 4 + jsonSizeAtMost(field, limit - size - key.length - 4);
    if (size > limit) return size;
  }
  return size === 1 ? 2 : size;
}

/** The number of characters of a non-negative integer in decimal (patch indices). */
export function digits(n: number): number {
  return n < 10 ? 1 : n < 100 ? 2 : n < 1000 ? 3 : n < 10000 ? 4 : String(n).length;
}

function numberLength(n: number): number {
  return Number.isInteger(n) && n >= 0 ? digits(n) : String(n).length;
}

/** A 32-bit structural hash consistent with deepEqual (object key order ignored). */
export function hashValue(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return hashString(value, 0x1234567);
    case 'number':
      return hashString(String(value), 0x2345678);
    case 'boolean':
      return value ? 0x3456789 : 0x456789a;
    case 'object':
      break;
    default:
      return 0x56789ab;
  }
  if (value === null) return 0x56789ab;
  if (Array.isArray(value)) {
    let hash = 0x6789abc ^ value.length;
    for (const element of value) hash = (Math.imul(hash, 31) + hashValue(element)) | 0;
    return hash;
  }
  // A sum of per-field hashes does not depend on the order of the fields.
  let hash = 0x789abcd;
  const object = value as JsonObject;
  for (const key of Object.keys(object)) {
    const field = object[key];
    if (field !== undefined) hash = (hash + Math.imul(hashString(key, 0x1f), 0x5bd1e995) + hashValue(field)) | 0;
  }
  return hash;
}

function hashString(text: string, seed: number): number {
  let hash = 0x811c9dc5 ^ seed;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash;
}
