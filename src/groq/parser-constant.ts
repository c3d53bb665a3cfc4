// Constant expressions: literals, parameters, and arithmetic and grouping on them. The parser
// evaluates them to tell `[1]` (an element) from `["a"]` (an attribute) and `[x > 1]` (a filter).
import type { ExprNode } from './ast.ts';
import { OPERATORS } from './evaluator/operators.ts';

/**
 * The value of a constant expression, or undefined when `node` is not constant or uses a
 * parameter whose value is not given (`param` gives a parameter's value, undefined when not given).
 */
export function constantValue(node: ExprNode, param: (name: string) => unknown): unknown {
  switch (node.type) {
    case 'Value':
      return node.value;
    case 'Parameter':
      return param(node.name);
    case 'Group':
      return constantValue(node.base, param);
    case 'Neg':
    case 'Pos': {
      const value = constantValue(node.base, param);
      if (value === undefined) return undefined;
      return typeof value === 'number' ? (node.type === 'Neg' ? -value : value) : null;
    }
    case 'OpCall': {
      if (!['+', '-', '*', '/', '%', '**'].includes(node.op)) return undefined;
      const left = constantValue(node.left, param);
      const right = constantValue(node.right, param);
      return left === undefined || right === undefined ? undefined : OPERATORS[node.op](left, right);
    }
    default:
      return undefined;
  }
}

/** Whether `node` is a constant expression, parameters included whatever their values. */
export function isConstant(node: ExprNode): boolean {
  switch (node.type) {
    case 'Value':
    case 'Parameter':
      return true;
    case 'Group':
    case 'Neg':
    case 'Pos':
      return isConstant(node.base);
    case 'OpCall':
      return ['+', '-', '*', '/', '%', '**'].includes(node.op) && isConstant(node.left) && isConstant(node.right);
    default:
      return false;
  }
}
