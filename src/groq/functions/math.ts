// math:: functions over arrays of numbers. Nulls are skipped; any other non-number makes the
// result null, as does a value that is not an array.
import { finite } from '../evaluator/values.ts';
import { unary } from './define.ts';
import type { Namespace } from './types.ts';

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

export const mathFunctions: Namespace = {
  // reduce rather than Math.min(...ns): spreading a large array exceeds the argument limit.
  min: unary((array) => {
    const ns = numbers(array);
    return ns && ns.length > 0 ? ns.reduce((a, b) => (b < a ? b : a)) : null;
  }),
  max: unary((array) => {
    const ns = numbers(array);
    return ns && ns.length > 0 ? ns.reduce((a, b) => (b > a ? b : a)) : null;
  }),
  sum: unary((array) => {
    const ns = numbers(array);
    return ns ? finite(ns.reduce((a, b) => a + b, 0)) : null;
  }),
  avg: unary((array) => {
    const ns = numbers(array);
    return ns && ns.length > 0 ? finite(ns.reduce((a, b) => a + b, 0) / ns.length) : null;
  }),
};
