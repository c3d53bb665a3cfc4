// The executor of a planned scan (planner/): binds the filter's constraints in the scope of this
// evaluation, asks the source with one request, then does what the source did not: the conjuncts
// it did not apply, the order, the slice or element, the count. The result is what the scan's
// original expression gives; a source without scan() gets that expression evaluated as it is.
import { compileTemplate } from '../planner/constraints.ts';
import type { ScanPlan, ScanRequest } from '../planner/scan-plan.ts';
import { PENDING } from '../source.ts';
import { compileDirect, compileNode, nestedContext, type CompilerTable, type Context } from './compile.ts';
import { sliceBounds, sortByTerms } from './compile-arrays.ts';
import type { Executor, Scope } from './scope.ts';

type ScanNodes = Pick<CompilerTable, 'Scan'>;

/** [start, end) of the ordered, filtered documents (ScanRequest.window). */
type Window = { start: number; end: number };

/** A scan's request, bound in the scope the scan is evaluated in, asking for `window`. */
export type RequestBinder = (scope: Scope, window: Window | null) => ScanRequest;

/**
 * Compiles what a scan asks of a source: its constraints, whose values are bound in the filter's
 * element scope, so that `^` means what it means in the filter. A streamed query (run-query.ts)
 * binds the request of its scan once, before asking for its pages.
 */
export function compileScanRequest(plan: ScanPlan, c: Context): RequestBinder {
  const inner = nestedContext(c, false);
  const pushed = plan.conjuncts.filter((conjunct) => conjunct.template);
  const binders = pushed.map((conjunct) => compileTemplate(conjunct.template!, (expr) => compileNode(expr, inner)));
  const constraintFields = pushed.map((conjunct) => conjunct.fields);
  const complete = pushed.length === plan.conjuncts.length;
  const count = plan.count && plan.range === null;
  // A windowed answer is then the result: nothing below filters, sorts or reads its documents.
  const verbatim = plan.isResult && complete && !plan.count;
  return (scope, window) => {
    const element = scope.nested(null);
    return {
      scan: plan.id,
      constraints: binders.map((bind) => bind(element)),
      constraintFields,
      complete,
      order: plan.orderPaths,
      window,
      count,
      fields: plan.fields,
      ...(verbatim ? { verbatim } : {}),
    };
  };
}

/** Returned for a slice whose bounds are not integers: the scan's value is null. */
const NO_SLICE: unique symbol = Symbol('no slice');

export const compileScanNodes: ScanNodes = {
  Scan: (node, c) => {
    const plan = node.plan;
    const original = compileDirect(node.original, c);
    const request = compileScanRequest(plan, c);
    const inner = nestedContext(c, false);
    const pushed = plan.conjuncts.filter((conjunct) => conjunct.template);
    const pushedTests = pushed.map((conjunct) => compileNode(conjunct.expr, inner));
    const residual = plan.conjuncts.filter((conjunct) => !conjunct.template).map((conjunct) => compileNode(conjunct.expr, inner));
    const keyOf = plan.order?.map((term) => compileNode(term.expr, inner)) ?? null;
    const signs = plan.order?.map((term) => (term.descending ? -1 : 1)) ?? [];
    const range = plan.range;
    const left: Executor | null = range?.kind === 'slice' ? compileNode(range.left, c) : null;
    const right: Executor | null = range?.kind === 'slice' ? compileNode(range.right, c) : null;
    // A source can window only an order it can follow: dataset order, or attribute paths.
    const windowable = plan.order === null || plan.orderPaths !== null;
    const empty = plan.count ? 0 : range?.kind === 'element' ? null : [];

    /** The window the range asks of the source (null: every candidate). */
    const windowOf = (scope: Scope): Window | null | typeof NO_SLICE => {
      let bounds: [number, number] | null = null;
      if (range?.kind === 'slice') {
        const l = left!(scope);
        const r = right!(scope);
        // Non-integer bounds make the slice null whatever the documents; negative ones need the length.
        if (!Number.isInteger(l) || !Number.isInteger(r)) return NO_SLICE;
        if ((l as number) >= 0 && (r as number) >= 0) bounds = sliceBounds(Number.MAX_SAFE_INTEGER, l, r, range.inclusive);
      } else if (range?.kind === 'element' && range.index >= 0) {
        bounds = [range.index, range.index + 1];
      }
      return bounds && windowable ? { start: bounds[0], end: Math.max(bounds[0], bounds[1]) } : null;
    };

    return (scope) => {
      const source = scope.run.source;
      const trace = scope.run.trace?.scan(plan.id, pushed.length);
      if (trace) trace.evaluations++;
      if (!source.scan) {
        if (trace) trace.unplanned++;
        return original(scope);
      }
      const window = windowOf(scope);
      if (window === NO_SLICE) return null;
      // A page of a streamed query answers its scan: nothing is asked of the source for it.
      const page = scope.run.page;
      const answer = page && page.scan === plan.id ? page.answer : source.scan(request(scope, window));
      if (answer === PENDING) {
        scope.run.pending = true;
        return empty;
      }
      if (answer.count !== undefined) {
        if (trace) {
          trace.counted++;
          answer.applied.forEach((applied, i) => applied && trace.applied[i]!++);
        }
        return answer.count;
      }
      const element = scope.nested(null);
      let documents = answer.documents ?? [];
      const tests = [...residual];
      answer.applied.forEach((applied, i) => {
        if (!applied) tests.push(pushedTests[i]!);
        else if (trace) trace.applied[i]!++;
      });
      if (trace) trace.candidates += documents.length;
      if (tests.length > 0) {
        scope.run.budget.charge(documents.length);
        documents = documents.filter((document) => {
          element.value = document;
          for (const test of tests) if (test(element) !== true) return false;
          return true;
        });
      }
      if (trace) trace.matched += documents.length;
      // A window is in the order asked already.
      if (keyOf && !answer.windowed) documents = sortByTerms(documents, keyOf, signs, scope);
      let result: unknown;
      if (answer.windowed) {
        if (trace) trace.windowed++;
        result = range?.kind === 'element' ? (documents[0] ?? null) : documents;
      } else if (range?.kind === 'element') {
        result = (documents[range.index < 0 ? documents.length + range.index : range.index] as unknown) ?? null;
      } else if (range?.kind === 'slice') {
        const slice = sliceBounds(documents.length, left!(scope), right!(scope), range.inclusive);
        result = slice ? documents.slice(slice[0], slice[1]) : null;
      } else {
        result = documents;
      }
      return plan.count ? (Array.isArray(result) ? result.length : null) : result;
    };
  },
};
