// The planner's rewrite: finds `*` with the filters, order(), slice or element, and count() around
// it, and replaces each such expression by a Scan node that a source can answer as one request.
// Everything else of the query is kept as it is. Then the field analysis (fields.ts) records what
// each scan's documents are read for, so that a source may return only those parts.
import type { ExprNode, ObjectAttribute, OrderTerm, ScanNode, Span } from '../ast.ts';
import { analyzeFields } from './fields.ts';
import { documentPath, toConjuncts } from './extract.ts';
import type { ScanRange } from './scan-plan.ts';

/** The planned form of a parsed query, a tree of its own (prepare() plans each query once). */
export function planQuery(tree: ExprNode): ExprNode {
  const planned = plan(tree, { next: 0 });
  if (planned.type === 'Scan') planned.plan.isResult = true;
  analyzeFields(planned);
  return planned;
}

type State = { next: number };

function value(n: number, span: Span): ExprNode {
  return { type: 'Value', value: n, start: span.start, end: span.end };
}

/**
 * Moves slices and elements below maps (`*[f]{a}[0...3]` slices before projecting, which gives the
 * same result since a map keeps length and order) and drops maps under count(), so that the slice
 * or the count meets the scan.
 */
function normalize(node: ExprNode): ExprNode {
  if (node.type === 'Slice' && node.base.type === 'Map') {
    const map = node.base;
    return { ...map, base: normalize({ ...node, base: map.base }) };
  }
  if (node.type === 'AccessElement' && node.base.type === 'Map' && node.index >= 0) {
    const map = node.base;
    const slice: ExprNode = { type: 'Slice', base: map.base, left: value(node.index, node), right: value(node.index + 1, node), inclusive: false, start: node.start, end: node.end };
    return { ...node, index: 0, base: { ...map, base: normalize(slice) } };
  }
  if (node.type === 'FuncCall' && node.namespace === 'global' && node.name === 'count' && node.args.length === 1 && node.args[0]!.type === 'Map') {
    return normalize({ ...node, args: [node.args[0]!.base] });
  }
  return node;
}

/**
 * The node under any `[]` around it. Only where it is an array (what a slice, an order or a filter
 * of `*` is), since `[]` makes anything else null.
 */
function arrayOf(node: ExprNode): ExprNode {
  while (node.type === 'ArrayCoerce') node = node.base;
  return node;
}

/** The Scan for `node` if it is `*` with filters, an order, a range and count() around it. */
function matchScan(original: ExprNode, state: State): ScanNode | null {
  let node = original;
  let count = false;
  if (node.type === 'FuncCall' && node.namespace === 'global' && node.name === 'count' && node.args.length === 1) {
    count = true;
    node = node.args[0]!;
  }
  // `x[]` of an array is the array: `*[][0...10]` is `*[0...10]` (an element is not an array).
  if (arrayOf(node).type !== 'AccessElement') node = arrayOf(node);
  let range: ScanRange | null = null;
  if (node.type === 'Slice') {
    range = { kind: 'slice', left: plan(node.left, state), right: plan(node.right, state), inclusive: node.inclusive };
    node = arrayOf(node.base);
  } else if (node.type === 'AccessElement' && !count) {
    range = { kind: 'element', index: node.index };
    node = arrayOf(node.base);
  }
  let order: OrderTerm[] | null = null;
  if (node.type === 'Order') {
    order = node.terms.map((term) => ({ expr: plan(term.expr, state), descending: term.descending }));
    node = arrayOf(node.base);
  }
  const filters: ExprNode[] = [];
  while (node.type === 'Filter') {
    filters.unshift(node.expr);
    node = arrayOf(node.base);
  }
  if (node.type !== 'Everything') return null;
  const conjuncts = filters.flatMap((filter) => toConjuncts(plan(filter, state)));
  const orderPaths = order?.map((term) => ({ path: documentPath(term.expr), descending: term.descending })) ?? null;
  return {
    type: 'Scan',
    original,
    start: original.start,
    end: original.end,
    plan: {
      id: state.next++,
      conjuncts,
      order,
      orderPaths: orderPaths && orderPaths.every((term) => term.path !== null) ? orderPaths.map((term) => ({ path: term.path!, descending: term.descending })) : null,
      range,
      count,
      fields: null,
      isResult: false,
    },
  };
}

function plan(input: ExprNode, state: State): ExprNode {
  const node = normalize(input);
  const scan = matchScan(node, state);
  if (scan) return scan;
  const p = (child: ExprNode) => plan(child, state);
  switch (node.type) {
    case 'Everything':
    case 'This':
    case 'Parent':
    case 'Parameter':
    case 'Value':
    case 'Scan':
      return node;
    case 'Array':
      return { ...node, elements: node.elements.map((e) => ({ value: p(e.value), splat: e.splat })) };
    case 'Object':
      return { ...node, attributes: node.attributes.map((a) => planAttribute(a, p)) };
    case 'AccessAttribute':
      return node.base ? { ...node, base: p(node.base) } : node;
    case 'Group':
    case 'AccessElement':
    case 'Deref':
    case 'ArrayCoerce':
    case 'Not':
    case 'Neg':
    case 'Pos':
      return { ...node, base: p(node.base) };
    case 'Slice':
    case 'InRange':
      return { ...node, base: p(node.base), left: p(node.left), right: p(node.right) };
    case 'Filter':
    case 'Map':
    case 'FlatMap':
      return { ...node, base: p(node.base), expr: p(node.expr) };
    case 'Projection':
      return { ...node, base: p(node.base), expr: { ...node.expr, attributes: node.expr.attributes.map((a) => planAttribute(a, p)) } };
    case 'And':
    case 'Or':
    case 'OpCall':
      return { ...node, left: p(node.left), right: p(node.right) };
    case 'FuncCall':
      // Selector arguments (diff::) are left as they are.
      return { ...node, args: node.args.map(p) };
    case 'Select':
      return { ...node, alternatives: node.alternatives.map((a) => ({ condition: p(a.condition), value: p(a.value) })), fallback: node.fallback && p(node.fallback) };
    case 'Order':
      return { ...node, base: p(node.base), terms: node.terms.map((t) => ({ expr: p(t.expr), descending: t.descending })) };
    case 'Score':
      return { ...node, base: p(node.base), terms: node.terms.map(p) };
  }
}

function planAttribute(attribute: ObjectAttribute, p: (child: ExprNode) => ExprNode): ObjectAttribute {
  switch (attribute.type) {
    case 'ObjectAttributeValue':
    case 'ObjectSplat':
      return { ...attribute, value: p(attribute.value) };
    case 'ObjectConditionalSplat':
      return { ...attribute, condition: p(attribute.condition), value: p(attribute.value) };
  }
}
