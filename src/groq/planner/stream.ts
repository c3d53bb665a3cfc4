// Queries whose result is made document by document from one scan are evaluated a page of
// documents at a time, so that memory holds a page, not the dataset:
// - items:     `*[filter]`, `*[filter]{...}`, `*[filter].a[]`... (maps, flat maps and filters over
//              the scan): the result is the concatenation of each page's result;
// - count:     `count(*[filter])` that the source cannot count itself: the sum of the pages';
// - aggregate: `f(items)` (`math::sum(*[_type == "post"].views)`): f of the concatenated items,
//              which holds the mapped values, not the documents. Where f does not depend on the
//              items' order, the source may hand the pages out in any order (an index's order);
//              where the items are one path's values of the scanned documents, it may hand out
//              those values alone (DocumentSource.values), or for f = array::unique the first
//              occurrence of each (DocumentSource.firstValues), or for math:: functions a summary
//              of the numbers (DocumentSource.numbers).
// The scan must have no order() and no slice: those need every candidate (or the source windows them).
import type { ExprNode, FuncCallNode } from '../ast.ts';
import { findFunction } from '../functions/registry.ts';
import type { GroqFunction, InAnyOrder } from '../functions/types.ts';
import { documentPath } from './extract.ts';
import type { FieldPath, ScanPlan } from './scan-plan.ts';

/** How a planned query is run a page of its scan's documents at a time (see above). */
export type StreamPlan =
  | { kind: 'items' | 'count'; scan: ScanPlan; root: ExprNode }
  | {
      kind: 'aggregate';
      scan: ScanPlan;
      /** The argument of the call: what each page contributes. */
      items: ExprNode;
      /** `f(items)`, applied to all the pages' items. */
      call: FuncCallNode;
      /** Set when f's value may not depend on the items' order: the pages may come in any order. */
      inAnyOrder: InAnyOrder | null;
      /** The path whose value each document contributes, when the items are just that (`*[f].a.b`). */
      valuesAt: FieldPath | null;
      /** Set when f's value is the same on the first occurrences of the items' values (GroqFunction.onFirstOccurrences). */
      onFirstOccurrences: boolean;
      /** f's value from a summary of the numbers, when it has one (GroqFunction.fromNumbers). */
      fromNumbers: GroqFunction['fromNumbers'] | null;
    };

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

/** How the planned query `root` is streamed, or null if it is evaluated whole. */
export function streamPlanOf(root: ExprNode): StreamPlan | null {
  const scan = itemsScan(root);
  if (scan) return { kind: 'items', scan, root };
  if (root.type === 'Scan' && root.plan.count && root.plan.range === null && root.plan.order === null) {
    return { kind: 'count', scan: root.plan, root };
  }
  if (root.type === 'FuncCall' && root.args.length === 1 && !root.selector) {
    const items = root.args[0]!;
    const inner = itemsScan(items);
    const f = findFunction(root.namespace, root.name);
    const valuesAt = items.type === 'Map' && items.base.type === 'Scan' ? documentPath(items.expr) : null;
    if (inner) {
      const { inAnyOrder = null, onFirstOccurrences, fromNumbers = null } = f ?? {};
      return { kind: 'aggregate', scan: inner, items, call: root, inAnyOrder, valuesAt, onFirstOccurrences: onFirstOccurrences === true, fromNumbers };
    }
  }
  return null;
}
