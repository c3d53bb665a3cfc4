import { randomBytes } from 'node:crypto';
import { setOwn } from '../../json/own-properties.ts';

/**
 * Sanity's `autoGenerateArrayKeys`: every object in an array gets a `_key` if it has none, so
 * editors can address it with `[_key=="..."]`. Returns a copy; the input is not changed.
 */
export function withArrayKeys<T>(value: T): T {
  return addKeys(value, false) as T;
}

function addKeys(value: unknown, inArray: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => addKeys(item, true));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  if (inArray && !Object.hasOwn(value, '_key')) out._key = randomBytes(6).toString('hex');
  for (const [key, child] of Object.entries(value)) setOwn(out, key, addKeys(child, false));
  return out;
}

/** Applies withArrayKeys inside each mutation (not to the list of mutations itself). */
export function mutationsWithArrayKeys(mutations: unknown): unknown {
  if (!Array.isArray(mutations)) return mutations;
  return mutations.map((mutation: unknown) =>
    typeof mutation === 'object' && mutation !== null && !Array.isArray(mutation)
      ? Object.fromEntries(Object.entries(mutation).map(([kind, payload]) => [kind, withArrayKeys(payload)]))
      : mutation,
  );
}
