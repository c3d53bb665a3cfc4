// The global namespace: functions called without a namespace (`count(x)` is `global::count(x)`).
// select() is parsed into its own node; order() and score() are pipe functions.
import { DateTime, Path } from '../evaluator/values.ts';
import { argument, nullary, unary } from './define.ts';
import type { Executor, Scope } from '../evaluator/scope.ts';
import { hasReference, referencedIds } from './references.ts';
import { stringFunctions } from './string.ts';
import type { GroqFunction, Namespace } from './types.ts';

/** The number of Unicode code points, as GROQ counts string length. */
function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate starts a pair that counts once, at its low surrogate.
    if (c < 0xd800 || c > 0xdbff) count++;
  }
  return count;
}

function toText(value: unknown): string | null {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
      return String(value);
    default:
      return value instanceof DateTime ? value.toString() : null;
  }
}

/** Rounds half away from zero, to `precision` decimals (a non-negative integer). */
function round(value: unknown, precision: unknown): unknown {
  if (typeof value !== 'number') return null;
  if (precision === 0) return Math.sign(value) * Math.round(Math.abs(value));
  if (typeof precision !== 'number' || precision < 0 || !Number.isInteger(precision)) return null;
  const rounded = Number(Math.abs(value).toFixed(precision));
  return value < 0 ? -rounded : rounded;
}

const coalesce: GroqFunction = {
  arity: [0, Infinity],
  compile(args) {
    return (scope) => {
      for (const arg of args) {
        const value = arg(scope);
        if (value !== null) return value;
      }
      return null;
    };
  },
};

/** The string ids among the values of references()' arguments (strings or arrays of strings). */
function idsOf(args: readonly Executor[], scope: Scope): Set<string> {
  const ids = new Set<string>();
  for (const arg of args) {
    const value = arg(scope);
    if (typeof value === 'string') ids.add(value);
    else if (Array.isArray(value)) for (const id of value) if (typeof id === 'string') ids.add(id);
  }
  return ids;
}

const references: GroqFunction = {
  arity: [1, Infinity],
  reads: 'this',
  compile(args, site) {
    // In a subquery per document (`*[...]{"n": count(*[references(^._id)])}`) every document is
    // searched once per outer element; there, the ids each document references are collected
    // once per run instead.
    if (site.loops < 2) {
      return (scope) => {
        const ids = idsOf(args, scope);
        return ids.size > 0 && hasReference(scope.value, ids);
      };
    }
    const slot = site.reserveSlot();
    return (scope) => {
      const ids = idsOf(args, scope);
      const value = scope.value;
      if (ids.size === 0 || typeof value !== 'object' || value === null) return false;
      let known = scope.run.cache[slot] as WeakMap<object, Set<string>> | undefined;
      if (!known) {
        known = new WeakMap();
        scope.run.cache[slot] = known;
      }
      let referenced = known.get(value);
      if (!referenced) {
        referenced = referencedIds(value);
        known.set(value, referenced);
      }
      for (const id of ids) if (referenced.has(id)) return true;
      return false;
    };
  },
};

const roundFunction: GroqFunction = {
  arity: [1, 2],
  compile(args) {
    const value = argument(args, 0);
    const precision = args[1];
    return precision ? (scope) => round(value(scope), precision(scope)) : (scope) => round(value(scope), 0);
  },
};

/** boost(condition, weight) adds weight to a score() term; outside score() terms it has no value. */
const boost: GroqFunction = { arity: [2, 2], scoreOnly: true, compile: () => () => null };

export const globalFunctions: Namespace = {
  coalesce,
  count: unary((v) => (Array.isArray(v) ? v.length : null)),
  dateTime: { ...unary((v) => (v instanceof DateTime ? v : typeof v === 'string' ? DateTime.parse(v) : null)), returnsNonJson: true },
  defined: unary((v) => v !== null),
  identity: nullary('context', (scope) => scope.run.identity),
  length: unary((v) => (typeof v === 'string' ? codePoints(v) : Array.isArray(v) ? v.length : null)),
  lower: stringFunctions.lower as GroqFunction,
  upper: stringFunctions.upper as GroqFunction,
  now: nullary('context', (scope) => new Date(scope.run.now.ms).toISOString()),
  path: { ...unary((v) => (typeof v === 'string' ? new Path(v) : null)), returnsNonJson: true },
  references,
  round: roundFunction,
  string: unary(toText),
  boost,
};
