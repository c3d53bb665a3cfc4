// array:: functions.
import { equals } from '../evaluator/compare.ts';
import { DateTime } from '../evaluator/values.ts';
import { argument, binary, unary } from './define.ts';
import type { Namespace } from './types.ts';

/** Values that array::join and array::unique treat as simple: numbers, strings, booleans, datetimes. */
function isSimple(value: unknown): boolean {
  const t = typeof value;
  return t === 'number' || t === 'string' || t === 'boolean' || value instanceof DateTime;
}

export const arrayFunctions: Namespace = {
  join: {
    arity: [2, 2],
    compile(args) {
      const items = argument(args, 0);
      const by = argument(args, 1);
      return (scope) => {
        const array = items(scope);
        const separator = by(scope);
        if (!Array.isArray(array) || typeof separator !== 'string') return null;
        const parts: string[] = [];
        // The separator is written between every two items: its length times theirs, asked of the budget first.
        let length = separator.length * Math.max(0, array.length - 1);
        for (const item of array) {
          if (!isSimple(item)) return null;
          const part = String(item);
          length += part.length;
          parts.push(part);
        }
        scope.run.budget.buildsText(length);
        return parts.join(separator);
      };
    },
  },
  compact: unary((array) => (Array.isArray(array) ? array.filter((item) => item !== null) : null)),
  unique: {
    ...unary((array) => {
      if (!Array.isArray(array)) return null;
      const seen = new Set<unknown>();
      const result: unknown[] = [];
      for (const item of array) {
        // Datetimes are compared by instant, other simple values by value; the rest are all kept.
        const key = item instanceof DateTime ? `datetime:${item.ms}` : item;
        if (isSimple(item) || item === null) {
          if (seen.has(key)) continue;
          seen.add(key);
        }
        result.push(item);
      }
      return result;
    }),
    onFirstOccurrences: true,
  },
  intersects: binary((a, b) => {
    if (!Array.isArray(a) || !Array.isArray(b)) return null;
    return a.some((x) => b.some((y) => equals(x, y)));
  }),
};
