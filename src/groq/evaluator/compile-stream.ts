// The executors of a query run a page of its scan's documents at a time (../planner/stream.ts):
// the request of the streamed scan, bound once before the pages are asked for; what one page
// yields; and for an aggregate `f(items)`, f of the items of all pages. run-query.ts drives them.
import type { FuncCallNode } from '../ast.ts';
import type { GroqFunction, InAnyOrder } from '../functions/types.ts';
import type { FieldPath } from '../planner/scan-plan.ts';
import type { StreamPlan } from '../planner/stream.ts';
import { compileNode, type Context } from './compile.ts';
import { compileScanRequest, type RequestBinder } from './compile-scan.ts';
import { compileCall } from './compile-structures.ts';
import type { Executor, Scope } from './scope.ts';

/** f of a value given as its argument: the items of every page, for a streamed aggregate. */
export type Aggregate = (scope: Scope, items: unknown) => unknown;

export type CompiledStream = {
  /** The streamed scan's id: a run of a page answers that scan with the page (Run.page). */
  readonly scan: number;
  /** The scan's request, bound in the root scope. */
  readonly request: RequestBinder;
  /** What one page yields: its part of the result array, its count, or its part of the items. */
  readonly page: Executor;
} & (
  | { readonly kind: 'items' | 'count' }
  | {
      readonly kind: 'aggregate';
      readonly aggregate: Aggregate;
      readonly inAnyOrder: InAnyOrder | null;
      readonly valuesAt: FieldPath | null;
      readonly onFirstOccurrences: boolean;
      readonly fromNumbers: GroqFunction['fromNumbers'] | null;
    }
);

/**
 * Compiles a streamed query: its root executor (the whole result at once, for a source without
 * pages()) and its stream. Run with a page as its scan's answer, the root of `*[f]{...}` or
 * `count(*[f])` yields that page's part; an aggregate's root is f of its items, compiled once for both.
 */
export function compileStream(plan: StreamPlan, c: Context): { root: Executor; stream: CompiledStream } {
  const request = compileScanRequest(plan.scan, c);
  const scan = plan.scan.id;
  if (plan.kind !== 'aggregate') {
    const root = compileNode(plan.root, c);
    return { root, stream: { kind: plan.kind, scan, request, page: root } };
  }
  const items = compileNode(plan.items, c);
  const aggregate = compileAggregate(plan.call, c);
  return {
    root: (scope) => aggregate(scope, items(scope)),
    stream: { kind: 'aggregate', scan, request, page: items, aggregate, inAnyOrder: plan.inAnyOrder, valuesAt: plan.valuesAt, onFirstOccurrences: plan.onFirstOccurrences, fromNumbers: plan.fromNumbers },
  };
}

/** `f(items)` with the items given, as the value of the call's one argument. */
function compileAggregate(call: FuncCallNode, c: Context): Aggregate {
  // A function reads its arguments through executors; this one reads the items of the call being
  // made (calls are synchronous, and nothing is kept after one).
  let argument: unknown = null;
  const exec = compileCall(call, [() => argument], c);
  return (scope, items) => {
    argument = items;
    try {
      return exec(scope);
    } finally {
      argument = null;
    }
  };
}
