// Which scopes an expression reads: the planner binds a filter's values (`$type`, `^._id`,
// `*[_type == "a"]._id`) once per evaluation of the filter, which is only right for expressions
// that never read the filter's own element (`@`, level 0). analysis.ts knows how far up an
// expression reaches; here we need the exact set of levels, with the same scope rules.
import type { ExprNode } from '../ast.ts';
import { operandsOf, selectorExpressions } from '../ast-operands.ts';
import { findFunction } from '../functions/registry.ts';

const NONE: ReadonlySet<number> = new Set();
const THIS: ReadonlySet<number> = new Set([0]);

/** Whether `node`, evaluated in a scope that is not a traversal's element scope, reads that scope's value. */
export function readsScopeValue(node: ExprNode): boolean {
  return levels(node, false).has(0);
}

function union(...sets: ReadonlySet<number>[]): ReadonlySet<number> {
  const out = new Set<number>();
  for (const set of sets) for (const level of set) out.add(level);
  return out;
}

/** Levels read by an expression evaluated in a scope made for it, seen from the enclosing scope. */
function inner(expr: ExprNode, hidden: boolean, exprHidden: boolean): ReadonlySet<number> {
  const out = new Set<number>();
  // A scope made inside a hidden scope has the hidden scope's parent as its parent (Scope.nested).
  for (const level of levels(expr, exprHidden)) if (level > 0) out.add(hidden ? level : level - 1);
  return out;
}

// Nothing is remembered between questions: one walks the tree of one value once, and planning
// asks one per value of a filter.
function levels(node: ExprNode, hidden: boolean): ReadonlySet<number> {
  const at = (n: ExprNode) => levels(n, hidden);
  switch (node.type) {
    case 'Everything':
    case 'Value':
    case 'Parameter':
      return NONE;
    case 'This':
      return THIS;
    case 'Parent':
      return new Set([node.levels]);
    case 'AccessAttribute':
      return node.base ? at(node.base) : THIS;
    case 'FuncCall': {
      const own = findFunction(node.namespace, node.name)?.reads === 'this' ? THIS : NONE;
      const selector = node.selector ? selectorExpressions(node.selector).map((e) => inner(e, hidden, false)) : [];
      return union(own, ...node.args.map(at), ...selector);
    }
    case 'Filter':
    case 'Projection':
      return union(at(node.base), inner(node.expr, hidden, false));
    case 'Map':
    case 'FlatMap':
      return union(at(node.base), inner(node.expr, hidden, true));
    case 'Order':
      return union(at(node.base), ...node.terms.map((t) => inner(t.expr, hidden, false)));
    case 'Score':
      return union(at(node.base), ...node.terms.map((t) => inner(t, hidden, false)));
    case 'Scan':
      return at(node.original);
    default:
      return union(...operandsOf(node).map(at));
  }
}
