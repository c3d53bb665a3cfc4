// Queries whose result is made document by document from one scan are evaluated a page of
// documents at a time, so that memory holds a page, not the dataset:
// - items:     `*[filter]`, `*[filter]{...}`, `*[filter].a[]`... (maps, flat maps and filters over
//              the scan): the result is the concatenation of each page's result;
// - count:     `count(*[filter])` that the source cannot count itself: the sum of the pages';
// - aggregate: `f(items)` (`math::sum(*[_type == "post"].views)`): f of the concatenated items,
//              which holds the mapped values, not the documents. Where f does not depend on the
//              items' order, the source may hand the pages out in any order (an index's order).
// The scan must have no order() and no slice: those need every candidate (or the source windows them).
import type { ExprNode, ParameterNode } from '../ast.ts';
import type { ScanPlan } from './scan-plan.ts';

/** The parameter that carries the collected items into an aggregate's function. Never parsed (it has a space). */
export const STREAM_PARAMETER = 'stream items';

/**
 * Whether an aggregate's value depends on the order of its items: `free` (math::min and max),
 * `sums` (math::sum and avg: floating-point addition is exact in any order only while every term
 * is an integer and the magnitudes add up to at most 2^53; see exactInAnyOrder), `kept` otherwise.
 */
export type ItemOrder = 'free' | 'sums' | 'kept';

export type StreamPlan =
  | { kind: 'items'; scan: ScanPlan; root: ExprNode }
  | { kind: 'count'; scan: ScanPlan; root: ExprNode }
  | { kind: 'aggregate'; scan: ScanPlan; items: ExprNode; outer: ExprNode; order: ItemOrder };

function itemOrderOf(node: ExprNode): ItemOrder {
  if (node.type !== 'FuncCall' || node.namespace !== 'math') return 'kept';
  if (node.name === 'min' || node.name === 'max') return 'free';
  return node.name === 'sum' || node.name === 'avg' ? 'sums' : 'kept';
}

/** Whether adding these items' numbers in any order gives exactly what adding them in order does. */
export function exactInAnyOrder(items: readonly unknown[]): boolean {
  let magnitude = 0;
  for (const item of items) {
    if (typeof item !== 'number') continue;
    if (!Number.isSafeInteger(item)) return false;
    magnitude += Math.abs(item);
    if (magnitude > Number.MAX_SAFE_INTEGER) return false;
  }
  return true;
}

/** The scan at the bottom of a chain of element-wise operations, if it can be streamed. */
function itemsScan(node: ExprNode): ScanPlan | null {
  switch (node.type) {
    case 'Map':
    case 'FlatMap':
    case 'Filter':
      return itemsScan(node.base);
    case 'Scan': {
      const plan = node.plan;
      return plan.order === null && plan.range === null && !plan.count ? plan : null;
    }
    default:
      return null;
  }
}

const plans = new WeakMap<ExprNode, StreamPlan | null>();

export function streamPlanOf(root: ExprNode): StreamPlan | null {
  if (plans.has(root)) return plans.get(root)!;
  let result: StreamPlan | null = null;
  const scan = itemsScan(root);
  if (scan) result = { kind: 'items', scan, root };
  else if (root.type === 'Scan' && root.plan.count && root.plan.range === null && root.plan.order === null) {
    result = { kind: 'count', scan: root.plan, root };
  } else if (root.type === 'FuncCall' && root.args.length === 1 && !root.selector) {
    const items = root.args[0]!;
    const inner = itemsScan(items);
    if (inner) {
      const placeholder: ParameterNode = { type: 'Parameter', name: STREAM_PARAMETER, start: items.start, end: items.end };
      result = { kind: 'aggregate', scan: inner, items, outer: { ...root, args: [placeholder] }, order: itemOrderOf(root) };
    }
  }
  plans.set(root, result);
  return result;
}
