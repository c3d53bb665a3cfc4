// Static facts about expressions that the parser and the compiler both need: how far up the
// scope chain an expression looks, and whether it reads the dataset. An expression that looks at
// no scope and reads the dataset (a subquery such as `*[_type == "a"]._id` inside a filter) has
// the same value wherever it is evaluated in one run, so the compiler computes it once.
import type { ExprNode } from './ast.ts';
import { operandsOf, selectorExpressions } from './ast-operands.ts';
import { findFunction } from './functions/registry.ts';

export type Facts = {
  /** -1: depends on no scope; 0: on the current scope's value; n: on the scope n levels up. */
  reach: number;
  /** Reads documents (`*`, releases::all()). */
  scans: boolean;
  /** Reads anything of the run besides scopes: documents, parameters, the clock, the identity. */
  runDependent: boolean;
};

const NONE: Facts = { reach: -1, scans: false, runDependent: false };
const THIS: Facts = { reach: 0, scans: false, runDependent: false };
const RUN: Facts = { reach: -1, scans: false, runDependent: true };

/**
 * The facts of one query's expressions. The compiler asks for those of every node from the root
 * down, and a node's are made of its children's: remembered while one query is compiled, each is
 * computed once.
 */
export class ExpressionFacts {
  // Per flag `hidden` (see of()).
  private readonly known = [new Map<ExprNode, Facts>(), new Map<ExprNode, Facts>()] as const;

  /**
   * Facts about `node` evaluated in a scope that is `hidden` (a traversal's element scope) or not.
   * A scope created inside a hidden scope has the hidden scope's parent as its parent, which is why
   * the flag changes how far a nested `^` reaches.
   */
  of(node: ExprNode, hidden: boolean): Facts {
    const known = this.known[hidden ? 1 : 0];
    let facts = known.get(node);
    if (!facts) {
      facts = compute(node, hidden, this);
      known.set(node, facts);
    }
    return facts;
  }
}

function combine(...all: Facts[]): Facts {
  let reach = -1;
  let scans = false;
  let runDependent = false;
  for (const f of all) {
    if (f.reach > reach) reach = f.reach;
    scans ||= f.scans;
    runDependent ||= f.runDependent;
  }
  return { reach, scans, runDependent };
}

/** Facts, seen from the enclosing scope, of an expression evaluated in a scope created for it. */
function inner(expr: ExprNode, hidden: boolean, exprHidden: boolean, facts: ExpressionFacts): Facts {
  const f = facts.of(expr, exprHidden);
  const reach = f.reach <= 0 ? -1 : hidden ? f.reach : f.reach - 1;
  return { reach, scans: f.scans, runDependent: f.runDependent };
}

function compute(node: ExprNode, hidden: boolean, facts: ExpressionFacts): Facts {
  const at = (n: ExprNode): Facts => facts.of(n, hidden);
  switch (node.type) {
    case 'Everything':
      return { reach: -1, scans: true, runDependent: true };
    case 'Value':
      return NONE;
    case 'Parameter':
      return RUN;
    case 'This':
      return THIS;
    case 'Parent':
      return { reach: node.levels, scans: false, runDependent: false };
    case 'AccessAttribute':
      return node.base ? at(node.base) : THIS;
    case 'Deref':
      return combine(at(node.base), RUN);
    case 'FuncCall': {
      const reads = findFunction(node.namespace, node.name)?.reads;
      const own: Facts = { reach: reads === 'this' ? 0 : -1, scans: reads === 'dataset', runDependent: reads === 'dataset' || reads === 'context' };
      // Selector expressions run in scopes of their own, on parts of the compared values.
      const selector = node.selector ? selectorExpressions(node.selector).map((e) => inner(e, hidden, false, facts)) : [];
      return combine(own, ...node.args.map(at), ...selector);
    }
    case 'Filter':
      return combine(at(node.base), inner(node.expr, hidden, false, facts));
    case 'Projection':
      return combine(at(node.base), inner(node.expr, hidden, false, facts));
    case 'Map':
    case 'FlatMap':
      return combine(at(node.base), inner(node.expr, hidden, true, facts));
    case 'Order':
      return combine(at(node.base), ...node.terms.map((t) => inner(t.expr, hidden, false, facts)));
    case 'Score':
      return combine(at(node.base), ...node.terms.map((t) => inner(t, hidden, false, facts)));
    case 'Scan':
      return at(node.original);
    default:
      return combine(...operandsOf(node).map(at));
  }
}
