// Traversal steps after an expression: `.name`, `->` and `->name`, `[...]` in its forms, and
// projections `{...}` (also written `| {...}`). Each step is resolved with the others of its chain
// by ../traversal.ts.
import type { ExprNode } from './ast.ts';
import type { Token } from './lexer.ts';
import { binaryOperator, type Parser } from './parser.ts';
import { constantValue, isConstant } from './parser-constant.ts';
import { parseObject } from './parser-literals.ts';
import type { Step } from './traversal.ts';

/** The step at the current token, or null if there is none. */
export function parseStep(p: Parser): Step | null {
  const t = p.peek();
  if (t.kind !== 'punct') return null;
  switch (t.text) {
    case '.': {
      if (p.isPunct('^', 1)) return null;
      p.next();
      const name = p.expectIdent('an attribute name after "."');
      return { kind: 'plain', start: t.start, end: name.end, build: (base) => ({ type: 'AccessAttribute', base, name: name.text, start: base.start, end: name.end }) };
    }
    case '->': {
      p.next();
      const attribute = p.isIdent() && !binaryOperator(p.peek()) ? p.expectIdent('an attribute name') : null;
      const end = attribute ? attribute.end : t.end;
      return {
        kind: 'plain',
        start: t.start,
        end,
        build: (base) => {
          const deref: ExprNode = { type: 'Deref', base, start: base.start, end: t.end };
          return attribute ? { type: 'AccessAttribute', base: deref, name: attribute.text, start: base.start, end } : deref;
        },
      };
    }
    case '[':
      p.next();
      return parseBracket(p, t);
    case '{':
      return projectionStep(p);
    case '|':
      if (!p.isPunct('{', 1)) return null;
      p.next();
      return projectionStep(p);
    default:
      return null;
  }
}

function projectionStep(p: Parser): Step {
  const open = p.next();
  const object = parseObject(p, open);
  return { kind: 'projection', start: open.start, end: object.end, build: (base) => ({ type: 'Projection', base, expr: object, start: base.start, end: object.end }) };
}

/** After `[`: `[]`, a slice `[a..b]`, an element `[1]`, an attribute `["a"]` or a filter. */
function parseBracket(p: Parser, open: Token): Step {
  if (p.isPunct(']')) {
    const close = p.next();
    return { kind: 'array', start: open.start, end: close.end, build: (base) => ({ type: 'ArrayCoerce', base, start: base.start, end: close.end }) };
  }
  const expr = p.parseExpr(0);
  if (p.isPunct('..') || p.isPunct('...')) {
    const inclusive = p.isPunct('..');
    p.next();
    const upper = p.parseExpr(0);
    const close = p.expectPunct(']', 'to close the slice');
    for (const bound of [expr, upper]) {
      if (!isConstant(bound)) p.fail(bound, 'slice bounds must be constant numbers');
      const value = constantValue(bound, p.paramValue);
      if (value !== undefined && !Number.isInteger(value)) p.fail(bound, 'slice bounds must be integers');
    }
    return {
      kind: 'array',
      start: open.start,
      end: close.end,
      build: (base) => ({ type: 'Slice', base, left: expr, right: upper, inclusive, start: base.start, end: close.end }),
    };
  }
  const close = p.expectPunct(']', 'to close the brackets');
  const value = constantValue(expr, p.paramValue);
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) p.fail(expr, 'an array index must be an integer');
    return { kind: 'element', start: open.start, end: close.end, build: (base) => ({ type: 'AccessElement', base, index: value, start: base.start, end: close.end }) };
  }
  if (typeof value === 'string') {
    return { kind: 'plain', start: open.start, end: close.end, build: (base) => ({ type: 'AccessAttribute', base, name: value, start: base.start, end: close.end }) };
  }
  return { kind: 'array', start: open.start, end: close.end, build: (base) => ({ type: 'Filter', base, expr, start: base.start, end: close.end }) };
}
