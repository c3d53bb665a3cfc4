// The terms of score(): how much a document matches. `a match b` scores by how many tokens match,
// `boost(term, w)` adds w to a term that scores, `||` adds its sides, `&&` adds them when both
// score, and any other expression scores 1 when true.
import type { ExprNode } from '../ast.ts';
import { compileNode, type Context } from './compile.ts';
import { matchScore } from './match.ts';
import type { Scope } from './scope.ts';

export type ScoreTerm = (scope: Scope) => number;

export function compileScoreTerm(node: ExprNode, c: Context): ScoreTerm {
  if (node.type === 'OpCall' && node.op === 'match') {
    const text = compileNode(node.left, c);
    const pattern = compileNode(node.right, c);
    return (scope) => matchScore(text(scope), pattern(scope));
  }
  if (node.type === 'FuncCall' && node.namespace === 'global' && node.name === 'boost') {
    const [termNode, weightNode] = node.args;
    if (!termNode || !weightNode) throw new Error('BUG: boost() without its two arguments');
    const term = compileScoreTerm(termNode, c);
    const weight = compileNode(weightNode, c);
    return (scope) => {
      const score = term(scope);
      const w = weight(scope);
      return typeof w === 'number' && score > 0 ? score + w : 0;
    };
  }
  if (node.type === 'Or' || node.type === 'And') {
    const left = compileScoreTerm(node.left, c);
    const right = compileScoreTerm(node.right, c);
    if (node.type === 'Or') return (scope) => left(scope) + right(scope);
    return (scope) => {
      const a = left(scope);
      const b = right(scope);
      return a === 0 || b === 0 ? 0 : a + b;
    };
  }
  const test = compileNode(node, c);
  return (scope) => (test(scope) === true ? 1 : 0);
}
