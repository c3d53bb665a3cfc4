// A text that two scan requests share exactly when they ask the same: sources cache answers under
// it (the rounds of an asynchronous source repeat every request). Datetimes and paths are tagged,
// so that `x > dateTime("2020-01-01T00:00:00Z")` and `x > "2020-01-01T00:00:00Z"` differ.
import { DateTime, Path } from '../evaluator/values.ts';
import type { ScanRequest } from './scan-plan.ts';

function replacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  // toJSON has already turned datetimes and paths into strings: look at the original.
  const original = this[key];
  if (original instanceof DateTime) return { $dateTime: original.ms };
  if (original instanceof Path) return { $path: original.pattern };
  return value;
}

export function requestKey(request: ScanRequest): string {
  return JSON.stringify(request, replacer);
}
