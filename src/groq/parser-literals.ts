// Array and object literals, which are also projections: `[a, ...b]`, `{a, "b": c, ...d, e => {...}}`.
import type { ArrayElement, ExprNode, ObjectAttribute, ObjectNode } from './ast.ts';
import type { Token } from './lexer.ts';
import type { Parser } from './parser.ts';

export function parseArray(p: Parser, open: Token): ExprNode {
  const elements: ArrayElement[] = [];
  while (!p.isPunct(']')) {
    const splat = p.isPunct('...');
    if (splat) p.next();
    elements.push({ value: p.parseExpr(0), splat });
    if (!p.isPunct(',')) break;
    p.next();
  }
  const close = p.expectPunct(']', 'to close the array');
  return { type: 'Array', elements, start: open.start, end: close.end };
}

export function parseObject(p: Parser, open: Token): ObjectNode {
  const attributes: ObjectAttribute[] = [];
  while (!p.isPunct('}')) {
    attributes.push(parseObjectAttribute(p));
    if (!p.isPunct(',')) break;
    p.next();
  }
  const close = p.expectPunct('}', 'to close the object');
  return { type: 'Object', attributes, start: open.start, end: close.end };
}

function parseObjectAttribute(p: Parser): ObjectAttribute {
  const first = p.peek();
  if (p.isPunct('...')) {
    p.next();
    if (p.isPunct('}') || p.isPunct(',')) return { type: 'ObjectSplat', value: { type: 'This', start: first.start, end: first.end }, start: first.start, end: first.end };
    const value = p.parseExpr(0);
    return { type: 'ObjectSplat', value, start: first.start, end: value.end };
  }
  const expr = p.parseExpr(0);
  if (p.isPunct(':')) {
    if (first.kind !== 'string' || expr.type !== 'Value') p.fail(first, 'an attribute name before ":" must be a string literal');
    p.next();
    const value = p.parseExpr(0);
    return { type: 'ObjectAttributeValue', name: first.value, value, start: first.start, end: value.end };
  }
  if (p.isPunct('=>')) {
    p.next();
    const value = p.parseExpr(0);
    return { type: 'ObjectConditionalSplat', condition: expr, value, start: expr.start, end: value.end };
  }
  const name = attributeName(expr);
  if (name === null) p.fail(expr, 'cannot tell the attribute name of this expression; write "name": expression');
  return { type: 'ObjectAttributeValue', name, value: expr, start: expr.start, end: expr.end };
}

/** The name `{expr}` gives its attribute: that of the bare attribute the expression starts from. */
function attributeName(node: ExprNode): string | null {
  switch (node.type) {
    case 'AccessAttribute':
      return node.base === null ? node.name : null;
    case 'Deref': case 'Map': case 'FlatMap': case 'Projection': case 'Slice': case 'Filter':
    case 'AccessElement': case 'ArrayCoerce': case 'Group': case 'Order': case 'Score':
      return attributeName(node.base);
    default:
      return null;
  }
}
