// The oracle: mendoza-js (what Studio runs) must turn `left` into `right` with our patch.
import { expect } from 'vitest';
import { applyPatch, incremental } from 'mendoza';
import { encode, type Patch } from '../../src/mendoza/index.ts';

/** As the value travels: JSON (undefined fields dropped, -0 is 0, undefined is null). */
export function asJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? null));
}

/** Equality of JSON values (as JSON.parse gives them), whatever their key order. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((element, i) => sameJson(element, b[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key]));
}

/** Deep equality as JSON, cheap when equal (this runs thousands of times), with a diff when not. */
function expectJsonEqual(actual: unknown, expected: unknown): void {
  const json = asJson(actual);
  if (!sameJson(json, expected)) expect(json).toEqual(expected);
}

/**
 * Applies `patch` (after a JSON round trip) to `left` with both of mendoza-js's appliers and
 * expects `right`. The incremental one (Studio's history) applies it twice to the same base
 * value: a patch that made it change its input would give a different second result.
 */
export function expectApplies(left: unknown, patch: Patch, right: unknown): void {
  const sent = asJson(patch) as Patch;
  const input = asJson(left);
  const expected = asJson(right);
  expectJsonEqual(applyPatch(input, sent), expected);
  expectJsonEqual(input, asJson(left));
  const base = incremental.wrap(input, 0);
  for (const origin of [1, 2]) expectJsonEqual(incremental.unwrap(incremental.applyPatch(base, sent, origin)), expected);
}

/** encode both ways and check both patches; returns them. */
export function expectRoundTrip(a: unknown, b: unknown): { forward: Patch; backward: Patch } {
  const forward = encode(a, b);
  const backward = encode(b, a);
  expectApplies(a, forward, b);
  expectApplies(b, backward, a);
  return { forward, backward };
}
