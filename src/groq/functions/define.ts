// Shorthands for the common kinds of function: a fixed number of eagerly evaluated arguments.
import type { Executor, Scope } from '../evaluator/scope.ts';
import type { GroqFunction } from './types.ts';

/** The executor of argument `i`; the parser has checked the arity, so it exists. */
export function argument(args: readonly Executor[], i: number): Executor {
  const arg = args[i];
  if (!arg) throw new Error(`BUG: argument ${i} missing after the arity check`);
  return arg;
}

export function nullary(reads: GroqFunction['reads'], fn: (scope: Scope) => unknown): GroqFunction {
  return { arity: [0, 0], reads, compile: () => fn };
}

export function unary(fn: (value: unknown) => unknown): GroqFunction {
  return {
    arity: [1, 1],
    compile(args) {
      const a = argument(args, 0);
      return (scope) => fn(a(scope));
    },
  };
}

export function binary(fn: (a: unknown, b: unknown) => unknown): GroqFunction {
  return {
    arity: [2, 2],
    compile(args) {
      const a = argument(args, 0);
      const b = argument(args, 1);
      return (scope) => fn(a(scope), b(scope));
    },
  };
}

/**
 * A function whose first argument is text it works through in one step (null for anything else):
 * the budget is told its length first (worksOnText), as nothing can stop the step once begun.
 */
export function overText(arity: 1 | 2, fn: (text: string, other: unknown) => unknown): GroqFunction {
  return {
    arity: [arity, arity],
    compile(args) {
      const text = argument(args, 0);
      const other = arity === 2 ? argument(args, 1) : undefined;
      return (scope) => {
        const value = text(scope);
        const second = other?.(scope);
        if (typeof value !== 'string') return null;
        scope.run.budget.worksOnText(value.length);
        return fn(value, second);
      };
    },
  };
}
