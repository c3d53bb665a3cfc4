/**
 * Request data is data: reads see own properties only and writes define own properties, so a key
 * such as `constructor`, `toString` or `hasOwnProperty` in a document is an ordinary attribute and
 * never reaches (or reads) Object.prototype.
 */
export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The own value of `key`, or undefined when `object` has no such own property. */
export function ownValue(object: object, key: string): unknown {
  return Object.hasOwn(object, key) ? (object as JsonRecord)[key] : undefined;
}

/** Sets `key` as an own data property, also when it is called `__proto__` (an assignment would set the prototype). */
export function setOwn(object: JsonRecord, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}
