// From a filter expression to conjuncts and constraints. A document passes `a && b && c` exactly
// when each conjunct is true, so each conjunct can be answered on its own: by a source (when it is
// a constraint the source applies exactly) or by the evaluator on the candidates.
import type { ExprNode } from '../ast.ts';
import type { ComparisonOperator, ConstraintTemplate, FieldPath, ScanConjunct } from './scan-plan.ts';
import { readsScopeValue } from './scopes.ts';

/** `a && (b && c)` -> [a, b, c]; groups are looked through. */
export function splitConjuncts(expr: ExprNode): ExprNode[] {
  if (expr.type === 'And') return [...splitConjuncts(expr.left), ...splitConjuncts(expr.right)];
  if (expr.type === 'Group') {
    const parts = splitConjuncts(expr.base);
    return parts.length > 1 ? parts : [expr];
  }
  return [expr];
}

export function toConjuncts(expr: ExprNode | null): ScanConjunct[] {
  return expr ? splitConjuncts(expr).map((part) => ({ expr: part, template: constraintOf(part), fields: null })) : [];
}

/** The attribute path an expression reads from the filter's element (`a.b`, `@.a.b`), or null. */
export function documentPath(expr: ExprNode): FieldPath | null {
  const names: string[] = [];
  let current: ExprNode | null = expr;
  while (current && current.type === 'AccessAttribute') {
    names.unshift(current.name);
    current = current.base;
  }
  if (names.length === 0) return null;
  return current === null || current.type === 'This' ? names : null;
}

/** A value the filter can compute once per evaluation: it never reads the element. */
function isBound(expr: ExprNode): boolean {
  return !readsScopeValue(expr);
}

const FLIPPED: Readonly<Record<ComparisonOperator, ComparisonOperator>> = { '==': '==', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

function unwrap(expr: ExprNode): ExprNode {
  return expr.type === 'Group' ? unwrap(expr.base) : expr;
}

/** The constraint an expression is, or null if the planner cannot say it as one. */
export function constraintOf(node: ExprNode): ConstraintTemplate | null {
  const expr = unwrap(node);
  switch (expr.type) {
    case 'Not': {
      const operand = constraintOf(expr.base);
      return operand && { kind: 'not', operand };
    }
    case 'And':
    case 'Or': {
      const left = constraintOf(expr.left);
      const right = constraintOf(expr.right);
      return left && right && { kind: expr.type === 'And' ? 'and' : 'or', operands: [left, right] };
    }
    case 'OpCall': {
      if (expr.op === 'in' || expr.op === 'match') {
        const path = documentPath(unwrap(expr.left));
        return path && isBound(expr.right) ? { kind: expr.op, path, value: expr.right } : null;
      }
      if (expr.op !== '==' && expr.op !== '!=' && expr.op !== '<' && expr.op !== '<=' && expr.op !== '>' && expr.op !== '>=') return null;
      const op: ComparisonOperator = expr.op === '!=' ? '==' : expr.op;
      let template: ConstraintTemplate | null = null;
      const leftPath = documentPath(unwrap(expr.left));
      const rightPath = documentPath(unwrap(expr.right));
      if (leftPath && isBound(expr.right)) template = { kind: 'compare', path: leftPath, op, value: expr.right };
      else if (rightPath && isBound(expr.left)) template = { kind: 'compare', path: rightPath, op: FLIPPED[op], value: expr.left };
      // `a != b` is `!(a == b)`: equality is never null.
      return template && expr.op === '!=' ? { kind: 'not', operand: template } : template;
    }
    case 'InRange': {
      const path = documentPath(unwrap(expr.base));
      return path && isBound(expr.left) && isBound(expr.right) ? { kind: 'range', path, low: expr.left, high: expr.right, inclusive: expr.inclusive } : null;
    }
    case 'FuncCall': {
      if (expr.namespace !== 'global') return null;
      if (expr.name === 'references' && expr.args.every(isBound)) return { kind: 'references', args: expr.args };
      if (expr.name === 'defined' && expr.args.length === 1) {
        const path = documentPath(unwrap(expr.args[0]!));
        return path && { kind: 'defined', path };
      }
      return null;
    }
    default:
      return null;
  }
}
