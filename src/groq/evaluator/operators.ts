// The arithmetic and membership operators. Operands of the wrong type give null, never an error.
import type { BinaryOperator } from '../ast.ts';
import { compare, equals } from './compare.ts';
import { matches } from './match.ts';
import { assignAttributes, DateTime, finite, isObject, Path } from './values.ts';

export type Operator = (left: unknown, right: unknown) => unknown;

function add(a: unknown, b: unknown): unknown {
  if (typeof a === 'number') {
    if (typeof b === 'number') return finite(a + b);
    return b instanceof DateTime ? new DateTime(b.ms + a * 1000) : null;
  }
  if (typeof a === 'string') return typeof b === 'string' ? a + b : null;
  if (Array.isArray(a)) return Array.isArray(b) ? a.concat(b) : null;
  if (a instanceof DateTime) return typeof b === 'number' ? new DateTime(a.ms + b * 1000) : null;
  if (isObject(a) && isObject(b)) {
    const result: Record<string, unknown> = {};
    assignAttributes(result, a);
    assignAttributes(result, b);
    return result;
  }
  return null;
}

function subtract(a: unknown, b: unknown): unknown {
  if (typeof a === 'number') return typeof b === 'number' ? finite(a - b) : null;
  if (a instanceof DateTime) {
    if (typeof b === 'number') return new DateTime(a.ms - b * 1000);
    // The difference of two datetimes is in seconds.
    if (b instanceof DateTime) return (a.ms - b.ms) / 1000;
  }
  return null;
}

const numeric =
  (op: (a: number, b: number) => number): Operator =>
  (a, b) =>
    typeof a === 'number' && typeof b === 'number' ? finite(op(a, b)) : null;

function comparison(test: (order: number) => boolean): Operator {
  return (a, b) => {
    const order = compare(a, b);
    return order === null ? null : test(order);
  };
}

/** `x in array` (equality with some element), `x in path(...)` (a string or path matching the pattern). */
function inOperator(a: unknown, b: unknown): unknown {
  if (Array.isArray(b)) {
    for (const item of b) if (equals(a, item)) return true;
    return false;
  }
  if (b instanceof Path) {
    if (typeof a === 'string') return b.matches(a);
    return a instanceof Path ? b.matches(a.pattern) : null;
  }
  return null;
}

export const OPERATORS: Readonly<Record<BinaryOperator, Operator>> = {
  '==': (a, b) => equals(a, b),
  '!=': (a, b) => !equals(a, b),
  '<': comparison((o) => o < 0),
  '<=': comparison((o) => o <= 0),
  '>': comparison((o) => o > 0),
  '>=': comparison((o) => o >= 0),
  '+': add,
  '-': subtract,
  '*': numeric((a, b) => a * b),
  '/': numeric((a, b) => a / b),
  '%': numeric((a, b) => a % b),
  '**': numeric((a, b) => a ** b),
  in: inOperator,
  match: matches,
};
