// A text that two scan requests of one query share exactly when they ask the same: sources cache
// answers under it (the rounds of an asynchronous source repeat every request). Datetimes and paths
// are tagged, so that `x > dateTime("2020-01-01T00:00:00Z")` and `x > "2020-01-01T00:00:00Z"` differ.
import { DateTime, Path } from '../evaluator/values.ts';
import type { ScanRequest } from './scan-plan.ts';

function replacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  // toJSON has already turned datetimes and paths into strings: look at the original.
  const original = this[key];
  if (original instanceof DateTime) return { $dateTime: original.ms };
  if (original instanceof Path) return { $path: original.pattern };
  return value;
}

/** Whether a datetime or a path is anywhere in `value`. */
function holdsTagged(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (value instanceof DateTime || value instanceof Path) return true;
  if (Array.isArray(value)) return value.some(holdsTagged);
  for (const key in value) if (holdsTagged((value as Record<string, unknown>)[key])) return true;
  return false;
}

/**
 * Only what is bound per evaluation is keyed: the rest of a request (order, fields, count, ...) is
 * its scan's plan, the same for every request of that scan in the query. A subquery per document
 * asks thousands of requests, each keyed twice (asked, then answered).
 */
export function requestKey(request: ScanRequest): string {
  const bound = [request.scan, request.window?.start ?? null, request.window?.end ?? null, request.constraints];
  // A replacer takes JSON.stringify off its fast path: most requests hold no datetime or path.
  return holdsTagged(request.constraints) ? JSON.stringify(bound, replacer) : JSON.stringify(bound);
}
