// Selectors, the last argument of diff::changedAny() and diff::changedOnly(): paths into a value
// such as `title`, `body[]`, `authors[name == "x"].name`, `(a, b.c)`, `a.(b, c)` or
// `anywhere(_type == "image")`. Anything else (operators, literals, projections) is rejected.
import type { SelectorNode } from './ast.ts';
import { describe, type Parser } from './parser.ts';
import { constantValue } from './parser-constant.ts';

export function parseSelector(p: Parser): SelectorNode {
  let node = parsePrimary(p);
  for (;;) {
    if (p.isPunct('[')) {
      p.next();
      if (p.isPunct(']')) {
        const close = p.next();
        node = { type: 'SelectorArray', base: node, start: node.start, end: close.end };
        continue;
      }
      const expr = p.parseExpr(0);
      const close = p.expectPunct(']', 'to close the brackets');
      const value = constantValue(expr, p.paramValue);
      if (typeof value === 'number') p.fail(expr, 'a selector cannot pick array elements by index; use a filter');
      node =
        typeof value === 'string'
          ? { type: 'SelectorAttribute', base: node, name: value, start: node.start, end: close.end }
          : { type: 'SelectorFilter', base: node, expr, start: node.start, end: close.end };
    } else if (p.isPunct('.')) {
      p.next();
      if (p.isPunct('(')) {
        const group = parseGroup(p);
        node = { type: 'SelectorGroup', base: node, members: group.members, start: node.start, end: group.end };
      } else {
        const name = p.expectIdent('an attribute name after "."');
        node = { type: 'SelectorAttribute', base: node, name: name.text, start: node.start, end: name.end };
      }
    } else {
      return node;
    }
  }
}

function parsePrimary(p: Parser): SelectorNode {
  const t = p.peek();
  if (t.kind === 'ident') {
    p.next();
    if (p.isPunct('(') && t.text === 'anywhere') {
      p.next();
      const expr = p.parseExpr(0);
      const close = p.expectPunct(')', 'to close anywhere(');
      return { type: 'SelectorAnywhere', expr, start: t.start, end: close.end };
    }
    if (p.isPunct('(') || p.isPunct('::')) p.fail(t, 'the only function allowed in a selector is anywhere()');
    return { type: 'SelectorAttribute', base: null, name: t.text, start: t.start, end: t.end };
  }
  if (t.kind === 'punct' && t.text === '(') {
    const group = parseGroup(p);
    return { type: 'SelectorGroup', base: null, members: group.members, start: t.start, end: group.end };
  }
  return p.fail(t, `expected a selector (an attribute name, a group in parentheses or anywhere(...)), found ${describe(t)}`);
}

/** `(selector, selector, ...)`. */
function parseGroup(p: Parser): { members: SelectorNode[]; end: number } {
  p.expectPunct('(', 'to open the group');
  const members = [parseSelector(p)];
  while (p.isPunct(',')) {
    p.next();
    members.push(parseSelector(p));
  }
  return { members, end: p.expectPunct(')', 'to close the group').end };
}
