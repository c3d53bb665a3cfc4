// The parts of expressions that the analyses of a query (analysis.ts, planner/scopes.ts, planner/
// explain.ts) walk alike: the operands evaluated in an expression's own scope, and the expressions
// inside a selector.
import type { ExprNode, SelectorNode } from './ast.ts';

/**
 * The operands of an expression that opens no scope and reads nothing itself, evaluated in the
 * expression's scope; null for the other kinds (leaves, attribute access, calls, traversals, scans),
 * which every analysis treats in its own way.
 */
export function sameScopeOperands(node: ExprNode): ExprNode[] | null {
  switch (node.type) {
    case 'Group':
    case 'AccessElement':
    case 'Deref':
    case 'ArrayCoerce':
    case 'Not':
    case 'Neg':
    case 'Pos':
      return [node.base];
    case 'Slice':
    case 'InRange':
      return [node.base, node.left, node.right];
    case 'And':
    case 'Or':
    case 'OpCall':
      return [node.left, node.right];
    case 'Array':
      return node.elements.map((e) => e.value);
    case 'Object':
      return node.attributes.flatMap((a) => (a.type === 'ObjectConditionalSplat' ? [a.condition, a.value] : [a.value]));
    case 'Select':
      return [...node.alternatives.flatMap((a) => [a.condition, a.value]), ...(node.fallback ? [node.fallback] : [])];
    default:
      return null;
  }
}

/** `sameScopeOperands` for the kinds that have them: what an analysis's default case walks. */
export function operandsOf(node: ExprNode): ExprNode[] {
  const operands = sameScopeOperands(node);
  if (!operands) throw new Error(`BUG: ${node.type} has no same-scope operands`);
  return operands;
}

/** The expressions of a selector (`a[b > 1].c` in a function argument), each run in a scope of its own. */
export function selectorExpressions(selector: SelectorNode): ExprNode[] {
  switch (selector.type) {
    case 'SelectorAttribute':
      return selector.base ? selectorExpressions(selector.base) : [];
    case 'SelectorArray':
      return selectorExpressions(selector.base);
    case 'SelectorFilter':
      return [...selectorExpressions(selector.base), selector.expr];
    case 'SelectorGroup':
      return [...(selector.base ? selectorExpressions(selector.base) : []), ...selector.members.flatMap(selectorExpressions)];
    case 'SelectorAnywhere':
      return [selector.expr];
  }
}
