// Compilers for the nodes that work on arrays: element access, slices, filters, `[]`, the maps a
// traversal inserts, and the pipe functions order() and score(). Applied to anything that is not
// an array they give null. Loops evaluate their body for every element in one scope object.
import { compileNode, nestedContext, type CompilerTable } from './compile.ts';
import { orderCompare } from './compare.ts';
import { compileScoreTerm } from './score.ts';
import type { Executor, Scope } from './scope.ts';
import { isObject } from './values.ts';

type ArrayNodes = Pick<CompilerTable, 'AccessElement' | 'Slice' | 'Filter' | 'ArrayCoerce' | 'Map' | 'FlatMap' | 'Order' | 'Score'>;

/** Start and end (exclusive) of a slice of `length` elements; null for non-integer bounds. */
export function sliceBounds(length: number, left: unknown, right: unknown, inclusive: boolean): [number, number] | null {
  if (!Number.isInteger(left) || !Number.isInteger(right)) return null;
  let start = (left as number) < 0 ? length + (left as number) : (left as number);
  let end = (right as number) < 0 ? length + (right as number) : (right as number);
  if (inclusive) end++;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  return [start, end];
}

export const compileArrayNodes: ArrayNodes = {
  AccessElement: (node, c) => {
    const base = compileNode(node.base, c);
    const index = node.index;
    return (scope) => {
      const array = base(scope);
      if (!Array.isArray(array)) return null;
      return (array[index < 0 ? array.length + index : index] as unknown) ?? null;
    };
  },
  Slice: (node, c) => {
    const base = compileNode(node.base, c);
    const left = compileNode(node.left, c);
    const right = compileNode(node.right, c);
    const inclusive = node.inclusive;
    return (scope) => {
      const array = base(scope);
      if (!Array.isArray(array)) return null;
      const bounds = sliceBounds(array.length, left(scope), right(scope), inclusive);
      return bounds ? array.slice(bounds[0], bounds[1]) : null;
    };
  },
  ArrayCoerce: (node, c) => {
    const base = compileNode(node.base, c);
    return (scope) => {
      const value = base(scope);
      return Array.isArray(value) ? value : null;
    };
  },
  Filter: (node, c) => {
    const base = compileNode(node.base, c);
    const keep = compileNode(node.expr, nestedContext(c, false));
    return (scope) => {
      const array = base(scope);
      if (!Array.isArray(array)) return null;
      scope.run.budget.charge(array.length);
      const inner = scope.nested(null);
      const out: unknown[] = [];
      for (const item of array) {
        inner.value = item;
        if (keep(inner) === true) out.push(item);
      }
      return out;
    };
  },
  Map: (node, c) => {
    const base = compileNode(node.base, c);
    const map = compileNode(node.expr, nestedContext(c, true));
    return (scope) => {
      const array = base(scope);
      if (!Array.isArray(array)) return null;
      scope.run.budget.charge(array.length);
      const inner = scope.element(null);
      const out = new Array<unknown>(array.length);
      for (let i = 0; i < array.length; i++) {
        inner.value = array[i];
        out[i] = map(inner);
      }
      return out;
    };
  },
  FlatMap: (node, c) => {
    const base = compileNode(node.base, c);
    const map = compileNode(node.expr, nestedContext(c, true));
    return (scope) => {
      const array = base(scope);
      if (!Array.isArray(array)) return null;
      scope.run.budget.charge(array.length);
      const inner = scope.element(null);
      const out: unknown[] = [];
      for (const item of array) {
        inner.value = item;
        const value = map(inner);
        if (Array.isArray(value)) {
          scope.run.budget.charge(value.length);
          for (const v of value) out.push(v);
        } else out.push(value);
      }
      return out;
    };
  },
  Order: (node, c) => {
    const base = compileNode(node.base, c);
    const keyOf = node.terms.map((t) => compileNode(t.expr, nestedContext(c, false)));
    const signs = node.terms.map((t) => (t.descending ? -1 : 1));
    return (scope) => {
      const array = base(scope);
      return Array.isArray(array) ? sortByTerms(array, keyOf, signs, scope) : null;
    };
  },
  Score: (node, c) => {
    const base = compileNode(node.base, c);
    const terms = node.terms.map((t) => compileScoreTerm(t, nestedContext(c, false)));
    return (scope: Scope) => {
      const array = base(scope);
      if (!Array.isArray(array)) return null;
      scope.run.budget.charge(array.length);
      const inner = scope.nested(null);
      const scored: { doc: Record<string, unknown>; score: number }[] = [];
      for (const item of array) {
        // Only objects can carry a score; anything else leaves the result.
        if (!isObject(item)) continue;
        inner.value = item;
        let score = typeof item['_score'] === 'number' ? item['_score'] : 0;
        for (const term of terms) score += term(inner);
        scored.push({ doc: item, score });
      }
      scored.sort((a, b) => b.score - a.score);
      return scored.map(({ doc, score }) => ({ ...doc, _score: score }));
    };
  },
};

/** The elements ordered by the terms (`keyOf` run in a scope nested in `scope`), ties kept in order. */
export function sortByTerms(array: readonly unknown[], keyOf: readonly Executor[], signs: readonly number[], scope: Scope): unknown[] {
  // A sort compares about n log n times: charged as such.
  scope.run.budget.charge(array.length * Math.ceil(Math.log2(array.length + 1)));
  const inner = scope.nested(null);
  // keys[t][i]: term t of element i, computed once per element rather than per comparison.
  const keys = keyOf.map((key) =>
    array.map((item) => {
      inner.value = item;
      return key(inner);
    }),
  );
  const order = Array.from(array, (_, i) => i);
  order.sort((a, b) => {
    for (let t = 0; t < keys.length; t++) {
      const k = keys[t] as unknown[];
      const result = orderCompare(k[a], k[b]);
      if (result !== 0) return result * (signs[t] as number);
    }
    // Equal keys keep their order.
    return a - b;
  });
  return order.map((i) => array[i]);
}
