// Compilers for the logical, comparison and arithmetic operators. Common shapes get specialized
// executors: comparing with a literal, and `x in [literal, ...]`, which becomes a Set lookup.
import type { ExprNode } from '../ast.ts';
import { compileNode, type CompilerTable } from './compile.ts';
import { compare } from './compare.ts';
import { OPERATORS } from './operators.ts';

type Operators = Pick<CompilerTable, 'Not' | 'Neg' | 'Pos' | 'And' | 'Or' | 'OpCall' | 'InRange'>;

type Primitive = string | number | boolean | null;

function literal(node: ExprNode): { value: Primitive } | null {
  return node.type === 'Value' ? { value: node.value } : null;
}

/** The elements of an array literal made only of literals, e.g. `["a", "b"]`. */
function literalArray(node: ExprNode): Primitive[] | null {
  if (node.type !== 'Array') return null;
  const values: Primitive[] = [];
  for (const element of node.elements) {
    if (element.splat || element.value.type !== 'Value') return null;
    values.push(element.value.value);
  }
  return values;
}

export const compileOperators: Operators = {
  Not: (node, c) => {
    const base = compileNode(node.base, c);
    return (scope) => {
      const value = base(scope);
      return value === true ? false : value === false ? true : null;
    };
  },
  Neg: (node, c) => {
    const base = compileNode(node.base, c);
    return (scope) => {
      const value = base(scope);
      return typeof value === 'number' ? -value : null;
    };
  },
  Pos: (node, c) => {
    const base = compileNode(node.base, c);
    return (scope) => {
      const value = base(scope);
      return typeof value === 'number' ? value : null;
    };
  },
  // `false && x` is false and `true || x` is true whatever x is; GROQ has no side effects, so
  // the right side need not be evaluated then.
  And: (node, c) => {
    const left = compileNode(node.left, c);
    const right = compileNode(node.right, c);
    return (scope) => {
      const a = left(scope);
      if (a === false) return false;
      const b = right(scope);
      if (b === false) return false;
      return a === true && b === true ? true : null;
    };
  },
  Or: (node, c) => {
    const left = compileNode(node.left, c);
    const right = compileNode(node.right, c);
    return (scope) => {
      const a = left(scope);
      if (a === true) return true;
      const b = right(scope);
      if (b === true) return true;
      return a === false && b === false ? false : null;
    };
  },
  OpCall: (node, c) => {
    if (node.op === '==' || node.op === '!=') {
      const onRight = literal(node.right);
      const constant = onRight ?? literal(node.left);
      if (constant) {
        // Equality with a literal is identity: literals are never datetimes, arrays or objects.
        const other = compileNode(onRight ? node.left : node.right, c);
        const value = constant.value;
        return node.op === '==' ? (scope) => other(scope) === value : (scope) => other(scope) !== value;
      }
    }
    const left = compileNode(node.left, c);
    if (node.op === 'in') {
      const members = literalArray(node.right);
      if (members) {
        const set = new Set<unknown>(members);
        return (scope) => set.has(left(scope));
      }
    }
    const right = compileNode(node.right, c);
    const operator = OPERATORS[node.op];
    if (node.op === 'in') {
      // `in` walks the array on its right.
      return (scope) => {
        const members = right(scope);
        if (Array.isArray(members)) scope.run.budget.charge(members.length);
        return operator(left(scope), members);
      };
    }
    if (node.op === 'match') {
      // `match` reads the text on its left (a string, or an array of them) word by word.
      return (scope) => {
        const text = left(scope);
        if (typeof text === 'string') scope.run.budget.worksOnText(text.length);
        else if (Array.isArray(text)) scope.run.budget.charge(text.length);
        return operator(text, right(scope));
      };
    }
    if (node.op === '+') {
      // Two strings make a third as long as both.
      return (scope) => {
        const a = left(scope);
        const b = right(scope);
        if (typeof a === 'string' && typeof b === 'string') scope.run.budget.buildsText(a.length + b.length);
        return operator(a, b);
      };
    }
    return (scope) => operator(left(scope), right(scope));
  },
  InRange: (node, c) => {
    const base = compileNode(node.base, c);
    const low = compileNode(node.left, c);
    const high = compileNode(node.right, c);
    const inclusive = node.inclusive;
    return (scope) => {
      const value = base(scope);
      const fromLow = compare(value, low(scope));
      if (fromLow === null) return null;
      const fromHigh = compare(value, high(scope));
      if (fromHigh === null) return null;
      return fromLow >= 0 && (inclusive ? fromHigh <= 0 : fromHigh < 0);
    };
  },
};
