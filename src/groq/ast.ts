// The typed syntax tree of a GROQ query. Every node carries the source span it was parsed from
// (`start` inclusive, `end` exclusive, UTF-16 offsets into the query).
//
// Traversals are already resolved into explicit array operations: `*[a > 1].b` is
// Map(Filter(Everything, a > 1), AccessAttribute(This, b)), so the evaluator never has to guess
// whether a step applies to an array or to each of its elements. Custom functions (`fn ns::f($x) =
// ...;`) are inlined at their call sites, so no node kind stands for them.

import type { ScanPlan } from './planner/scan-plan.ts';

export type Span = { start: number; end: number };

export type ExprNode =
  | EverythingNode
  | ThisNode
  | ParentNode
  | ParameterNode
  | ValueNode
  | ArrayNode
  | ObjectNode
  | GroupNode
  | AccessAttributeNode
  | AccessElementNode
  | SliceNode
  | FilterNode
  | ProjectionNode
  | DerefNode
  | ArrayCoerceNode
  | MapNode
  | FlatMapNode
  | NotNode
  | NegNode
  | PosNode
  | AndNode
  | OrNode
  | OpCallNode
  | InRangeNode
  | FuncCallNode
  | SelectNode
  | OrderNode
  | ScoreNode
  | ScanNode;

export type NodeType = ExprNode['type'];

/** `*`: every document of the data source. */
export type EverythingNode = Span & { type: 'Everything' };

/** `@`: the value of the current scope. */
export type ThisNode = Span & { type: 'This' };

/** `^` (levels 1), `^.^` (levels 2), ...: the value of an enclosing scope. */
export type ParentNode = Span & { type: 'Parent'; levels: number };

/** `$name`. */
export type ParameterNode = Span & { type: 'Parameter'; name: string };

/** A literal (string, number, boolean or null). */
export type ValueNode = Span & { type: 'Value'; value: string | number | boolean | null };

export type ArrayElement = { value: ExprNode; splat: boolean };
export type ArrayNode = Span & { type: 'Array'; elements: ArrayElement[] };

export type ObjectAttribute =
  | (Span & { type: 'ObjectAttributeValue'; name: string; value: ExprNode })
  | (Span & { type: 'ObjectSplat'; value: ExprNode })
  | (Span & { type: 'ObjectConditionalSplat'; condition: ExprNode; value: ExprNode });
export type ObjectNode = Span & { type: 'Object'; attributes: ObjectAttribute[] };

/** `( expr )`: kept because a group ends a traversal (`(a[]).b` differs from `a[].b`). */
export type GroupNode = Span & { type: 'Group'; base: ExprNode };

/**
 * `base.name` or `base["name"]`. A bare `name` has no base: it reads the current scope's value,
 * and unlike `@.name` it may stand alone in a projection (`{name}` means `{"name": name}`).
 */
export type AccessAttributeNode = Span & { type: 'AccessAttribute'; base: ExprNode | null; name: string };

/** `base[index]` with a constant integer. */
export type AccessElementNode = Span & { type: 'AccessElement'; base: ExprNode; index: number };

/**
 * `base[left..right]` (inclusive) or `base[left...right]`. The bounds are constant expressions
 * (literals, parameters and arithmetic on them) that must evaluate to integers.
 */
export type SliceNode = Span & { type: 'Slice'; base: ExprNode; left: ExprNode; right: ExprNode; inclusive: boolean };

/** `base[expr]`: the elements for which `expr` is true. */
export type FilterNode = Span & { type: 'Filter'; base: ExprNode; expr: ExprNode };

/** `base{...}` on a single value: `expr` evaluated with the base as `@`. */
export type ProjectionNode = Span & { type: 'Projection'; base: ExprNode; expr: ObjectNode };

/** `base->`: the document whose `_id` is `base._ref`. */
export type DerefNode = Span & { type: 'Deref'; base: ExprNode };

/** `base[]`: the base if it is an array, else null. */
export type ArrayCoerceNode = Span & { type: 'ArrayCoerce'; base: ExprNode };

/** Applies `expr` to every element of the array `base` (in a scope that `^` looks through). */
export type MapNode = Span & { type: 'Map'; base: ExprNode; expr: ExprNode };

/** Like Map, but array results are spliced into the result (`a[].b[]`). */
export type FlatMapNode = Span & { type: 'FlatMap'; base: ExprNode; expr: ExprNode };

export type NotNode = Span & { type: 'Not'; base: ExprNode };
export type NegNode = Span & { type: 'Neg'; base: ExprNode };
export type PosNode = Span & { type: 'Pos'; base: ExprNode };
export type AndNode = Span & { type: 'And'; left: ExprNode; right: ExprNode };
export type OrNode = Span & { type: 'Or'; left: ExprNode; right: ExprNode };

export type BinaryOperator = '==' | '!=' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*' | '/' | '%' | '**' | 'in' | 'match';
export type OpCallNode = Span & { type: 'OpCall'; op: BinaryOperator; left: ExprNode; right: ExprNode };

/** `base in left..right` (inclusive) or `base in left...right`. */
export type InRangeNode = Span & { type: 'InRange'; base: ExprNode; left: ExprNode; right: ExprNode; inclusive: boolean };

/**
 * `namespace::name(args)`; the namespace is `global` when omitted. The diff:: functions take a
 * selector (`a.b`, `a[]`, `a[b == 1]`, `(a, b)`, `anywhere(...)`) as their last argument, kept
 * apart from the expression arguments.
 */
export type FuncCallNode = Span & {
  type: 'FuncCall';
  namespace: string;
  name: string;
  args: ExprNode[];
  selector: SelectorNode | null;
};

export type SelectorNode =
  | (Span & { type: 'SelectorAttribute'; base: SelectorNode | null; name: string })
  | (Span & { type: 'SelectorArray'; base: SelectorNode })
  | (Span & { type: 'SelectorFilter'; base: SelectorNode; expr: ExprNode })
  | (Span & { type: 'SelectorGroup'; base: SelectorNode | null; members: SelectorNode[] })
  | (Span & { type: 'SelectorAnywhere'; expr: ExprNode });

/** `select(cond => value, ..., fallback?)`. */
export type SelectNode = Span & {
  type: 'Select';
  alternatives: { condition: ExprNode; value: ExprNode }[];
  fallback: ExprNode | null;
};

export type OrderTerm = { expr: ExprNode; descending: boolean };

/** `base | order(expr asc|desc, ...)`. */
export type OrderNode = Span & { type: 'Order'; base: ExprNode; terms: OrderTerm[] };

/** `base | score(expr, ...)`; `boost(expr, weight)` may appear inside the terms. */
export type ScoreNode = Span & { type: 'Score'; base: ExprNode; terms: ExprNode[] };

/**
 * Never parsed: the query planner (planner/plan-query.ts) puts it where `*` and what surrounds it
 * (filter, order, slice, count) can be asked of a source as one request. `original` is what it
 * replaces, evaluated as is by sources that cannot answer requests.
 */
export type ScanNode = Span & { type: 'Scan'; original: ExprNode; plan: ScanPlan };
