// math:: functions over arrays of numbers. Nulls are skipped; any other non-number makes the
// result null, as does a value that is not an array.
import { finite } from '../evaluator/values.ts';
import { unary } from './define.ts';
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

export const mathFunctions: Namespace = {
  // reduce rather than Math.min(...ns): spreading a large array exceeds the argument limit.
  min: {
    ...unary((array) => {
      const ns = numbers(array);
      return ns && ns.length > 0 ? ns.reduce((a, b) => (b < a ? b : a)) : null;
    }),
    inAnyOrder: always,
  },
  max: {
    ...unary((array) => {
      const ns = numbers(array);
      return ns && ns.length > 0 ? ns.reduce((a, b) => (b > a ? b : a)) : null;
    }),
    inAnyOrder: always,
  },
  sum: {
    ...unary((array) => {
      const ns = numbers(array);
      return ns ? finite(ns.reduce((a, b) => a + b, 0)) : null;
    }),
    inAnyOrder: exactSum,
  },
  avg: {
    ...unary((array) => {
      const ns = numbers(array);
      return ns && ns.length > 0 ? finite(ns.reduce((a, b) => a + b, 0) / ns.length) : null;
    }),
    inAnyOrder: exactSum,
  },
};
