// How a case of the GROQ conformance suite is judged: which cases apply to the GROQ version we
// implement, and when an actual result equals the expected one.
import type { SuiteCase } from './groq-suite-cases.ts';

/** The GROQ revision we implement (GROQ-1.revision2), as the suite's `version` ranges name it. */
const IMPLEMENTED = [1, 2] as const;

/** Does a `version` range of the suite (`0.1`, `>= 1.0`, ...) include the revision we implement? */
export function versionApplies(range: string | undefined): boolean {
  if (range === undefined) return true;
  const m = /^\s*(>=)?\s*(\d+)\.(\d+)\s*$/.exec(range);
  if (!m) throw new Error(`unsupported version range in the suite: ${range}`);
  const major = Number(m[2]);
  const minor = Number(m[3]);
  if (m[1]) return IMPLEMENTED[0] > major || (IMPLEMENTED[0] === major && IMPLEMENTED[1] >= minor);
  return IMPLEMENTED[0] === major && IMPLEMENTED[1] === minor;
}

export type SkipReason = 'for GROQ 0.1' | 'on the external movies dataset' | 'too slow for this engine';

export function skipReason(
  c: SuiteCase,
  external: ReadonlyMap<string, unknown[]>,
  tooSlow: ReadonlySet<string> | undefined,
): SkipReason | null {
  if (!versionApplies(c.version)) return 'for GROQ 0.1';
  if (c.dataset?.kind === 'external' && !external.has(c.dataset.name)) return 'on the external movies dataset';
  if (tooSlow?.has(c.name)) return 'too slow for this engine';
  return null;
}

/**
 * Scores are implementation-defined, so the suite compares ranks: every `_score` becomes `_pos`,
 * the rank of that score among the distinct scores in the result (highest = 1).
 */
export function replaceScoresWithRanks(value: unknown): void {
  const holders: Record<string, unknown>[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const item of v) visit(item);
    } else if (v !== null && typeof v === 'object') {
      const obj = v as Record<string, unknown>;
      if (typeof obj['_score'] === 'number') holders.push(obj);
      for (const child of Object.values(obj)) visit(child);
    }
  };
  visit(value);
  const ranks = [...new Set(holders.map((h) => h['_score'] as number))].sort((a, b) => b - a);
  for (const holder of holders) {
    holder['_pos'] = ranks.indexOf(holder['_score'] as number) + 1;
    delete holder['_score'];
  }
}

/** Deep equality of JSON values: arrays in order, object keys in any order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao);
  if (keys.length !== Object.keys(bo).length) return false;
  return keys.every((k) => Object.hasOwn(bo, k) && jsonEqual(ao[k], bo[k]));
}

/** The result as JSON would carry it (drops undefined, turns dates and paths into strings). */
export function toJson(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}
