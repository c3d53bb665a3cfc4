// math:: functions over arrays of numbers. Nulls are skipped; any other non-number makes the
// result null, as does a value that is not an array.
import { finite } from '../evaluator/values.ts';
import { unary } from './define.ts';
import type { NumberSummary } from '../planner/scan-plan.ts';
import type { InAnyOrder, Namespace } from './types.ts';

/** The numbers of the array, or null if it is not an array of numbers and nulls. */
function numbers(array: unknown): number[] | null {
  if (!Array.isArray(array)) return null;
  const result: number[] = [];
  for (const item of array) {
    if (typeof item === 'number') result.push(item);
    else if (item !== null) return null;
  }
  return result;
}

/** The smallest and the largest element do not depend on the order. */
const always: InAnyOrder = () => true;

/**
 * Floating-point addition depends on the order of its terms (`1e16 + 1 + 1` is 1e16, `1 + 1 + 1e16`
 * is 1e16 + 2), except while every term is an integer and their magnitudes add up to at most 2^53:
 * then every partial sum is exact. Elements that are not numbers make no sum in any order.
 */
const exactSum: InAnyOrder = (elements) => {
  let magnitude = 0;
  for (const element of elements) {
    if (typeof element !== 'number') continue;
    if (!Number.isSafeInteger(element)) return false;
    magnitude += Math.abs(element);
    if (magnitude > Number.MAX_SAFE_INTEGER) return false;
  }
  return true;
};

type Numbers = Extract<NumberSummary, { kind: 'numbers' }>;

/** A summary's sum when every order of its terms gives it, as exactSum() tells of the elements. */
function exactSumOf(summary: Numbers): number | undefined {
  // Summed in any order, the magnitudes stay at most 2^53 - 1 only if their exact sum does (each
  // rounding of a partial sum at or past 2^53 stays at or past it), so every partial sum was exact.
  return summary.fractions === 0 && summary.magnitude <= Number.MAX_SAFE_INTEGER ? summary.sum : undefined;
}

/** A function of a summary's numbers, null for a summary of other values too (as numbers() says). */
const ofNumbers =
  (f: (summary: Numbers) => number | null | undefined) =>
  (summary: NumberSummary): number | null | undefined =>
    summary.kind === 'mixed' ? null : f(summary);

export const mathFunctions: Namespace = {
  // reduce rather than Math.min(...ns): spreading a large array exceeds the argument limit.
  min: {
    ...unary((array) => {
      const ns = numbers(array);
      return ns && ns.length > 0 ? ns.reduce((a, b) => (b < a ? b : a)) : null;
    }),
    inAnyOrder: always,
    fromNumbers: ofNumbers((summary) => summary.min),
  },
  max: {
    ...unary((array) => {
      const ns = numbers(array);
      return ns && ns.length > 0 ? ns.reduce((a, b) => (b > a ? b : a)) : null;
    }),
    inAnyOrder: always,
    fromNumbers: ofNumbers((summary) => summary.max),
  },
  sum: {
    ...unary((array) => {
      const ns = numbers(array);
      return ns ? finite(ns.reduce((a, b) => a + b, 0)) : null;
    }),
    inAnyOrder: exactSum,
    fromNumbers: ofNumbers((summary) => {
      const sum = exactSumOf(summary);
      return sum === undefined ? undefined : finite(sum);
    }),
  },
  avg: {
    ...unary((array) => {
      const ns = numbers(array);
      return ns && ns.length > 0 ? finite(ns.reduce((a, b) => a + b, 0) / ns.length) : null;
    }),
    inAnyOrder: exactSum,
    fromNumbers: ofNumbers((summary) => {
      if (summary.count === 0) return null;
      const sum = exactSumOf(summary);
      return sum === undefined ? undefined : finite(sum / summary.count);
    }),
  },
};
