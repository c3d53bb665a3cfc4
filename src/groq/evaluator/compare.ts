// Equality and ordering, as the GROQ specification defines them: only values of the same simple
// type are equal or comparable; arrays and objects are equal to nothing, not even themselves.
import { DateTime } from './values.ts';

export function equals(a: unknown, b: unknown): boolean {
  if (typeof a === 'object') {
    if (a === null) return b === null;
    return a instanceof DateTime && b instanceof DateTime && a.ms === b.ms;
  }
  return a === b;
}

/** Negative, zero or positive; null when the values cannot be compared. */
export function compare(a: unknown, b: unknown): number | null {
  switch (typeof a) {
    case 'number':
      return typeof b === 'number' ? a - b : null;
    case 'string':
      return typeof b === 'string' ? (a < b ? -1 : a > b ? 1 : 0) : null;
    case 'boolean':
      return typeof b === 'boolean' ? Number(a) - Number(b) : null;
    case 'object':
      return a instanceof DateTime && b instanceof DateTime ? a.ms - b.ms : null;
    default:
      return null;
  }
}

/** The rank of a type in order(): datetimes, numbers, strings, booleans, then everything else. */
function orderRank(value: unknown): number {
  switch (typeof value) {
    case 'number':
      return 2;
    case 'string':
      return 3;
    case 'boolean':
      return 4;
    default:
      return value instanceof DateTime ? 1 : 5;
  }
}

/** The total order order() sorts by; values it cannot compare (nulls, objects) tie. */
export function orderCompare(a: unknown, b: unknown): number {
  const ra = orderRank(a);
  const rb = orderRank(b);
  if (ra !== rb) return ra - rb;
  return compare(a, b) ?? 0;
}
