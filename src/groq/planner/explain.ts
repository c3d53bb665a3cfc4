// EXPLAIN output: the scans of a planned query as text a developer recognizes (the parts of the
// query they come from), with what is asked of the source and what the evaluator does itself.
import type { ExprNode, ScanNode } from '../ast.ts';
import { operandsOf } from '../ast-operands.ts';
import { formatReadPath, type ScanPlan } from './scan-plan.ts';

export type ScanDescription = {
  scan: number;
  /** The part of the query the scan answers. */
  expression: string;
  /** Filter conjuncts handed to the source as constraints (it may still leave some to the evaluator). */
  constraints: string[];
  /** Filter conjuncts the evaluator evaluates on the candidates. */
  evaluated: string[];
  order: string | null;
  /** The order can be asked of the source (its terms are attribute paths). */
  orderable: boolean;
  range: string | null;
  count: boolean;
  /** The attributes read of the documents (`*`: whole documents). */
  fields: string[] | '*';
};

export type PlanDescription = { scans: ScanDescription[] };

function children(node: ExprNode): ExprNode[] {
  switch (node.type) {
    case 'Everything':
    case 'This':
    case 'Parent':
    case 'Parameter':
    case 'Value':
      return [];
    case 'AccessAttribute':
      return node.base ? [node.base] : [];
    case 'Filter':
    case 'Map':
    case 'FlatMap':
      return [node.base, node.expr];
    case 'Projection':
      return [node.base, node.expr];
    case 'FuncCall':
      return node.args;
    case 'Order':
      return [node.base, ...node.terms.map((t) => t.expr)];
    case 'Score':
      return [node.base, ...node.terms];
    case 'Scan': {
      const plan = node.plan;
      return [
        ...plan.conjuncts.map((c) => c.expr),
        ...(plan.order ?? []).map((t) => t.expr),
        ...(plan.range?.kind === 'slice' ? [plan.range.left, plan.range.right] : []),
      ];
    }
    default:
      return operandsOf(node);
  }
}

function scans(node: ExprNode, out: ScanNode[]): ScanNode[] {
  if (node.type === 'Scan') out.push(node);
  for (const child of children(node)) scans(child, out);
  return out;
}

function describeScan(node: ScanNode, query: string): ScanDescription {
  const plan: ScanPlan = node.plan;
  // Literals the planner made (a slice for `[1]` below a projection) have no text of their own.
  const text = (expr: ExprNode) => (expr.type === 'Value' ? JSON.stringify(expr.value) : query.slice(expr.start, expr.end).trim());
  const range = plan.range;
  return {
    scan: plan.id,
    expression: text(node),
    constraints: plan.conjuncts.filter((c) => c.template).map((c) => text(c.expr)),
    evaluated: plan.conjuncts.filter((c) => !c.template).map((c) => text(c.expr)),
    order: plan.order ? plan.order.map((t) => `${text(t.expr)}${t.descending ? ' desc' : ''}`).join(', ') : null,
    orderable: plan.order === null || plan.orderPaths !== null,
    range: range === null ? null : range.kind === 'element' ? `[${range.index}]` : `[${text(range.left)}${range.inclusive ? '..' : '...'}${text(range.right)}]`,
    count: plan.count,
    fields: plan.fields === null ? '*' : plan.fields.map(formatReadPath),
  };
}

/** The scans of a planned query (planQuery's result), described in terms of the query's text. */
export function describePlan(planned: ExprNode, query: string): PlanDescription {
  return { scans: scans(planned, []).map((node) => describeScan(node, query)) };
}
