// Function calls: built-in functions (checked against the registry for their arity), select(),
// the pipe functions order() and score(), and custom functions declared at the start of a query
// (`fn ns::name($x) = $x{...}; query`), which are inlined at each call site.
import { ExpressionFacts } from './analysis.ts';
import type { ExprNode, FuncCallNode, OrderTerm, SelectNode, SelectorNode } from './ast.ts';
import { findFunction, hasNamespace } from './functions/registry.ts';
import type { Token } from './lexer.ts';
import type { Parser } from './parser.ts';
import { parseSelector } from './parser-selector.ts';

type Ident = Extract<Token, { kind: 'ident' }>;

export type CustomFunction = { key: string; parameter: string; bodyIndex: number };
export type CustomFunctions = Map<string, CustomFunction>;

/** Parses `name(args)` or `namespace::name(args)`; the first identifier has been consumed. */
export function parseCall(p: Parser, first: Ident): ExprNode {
  let namespace = 'global';
  let name = first.text;
  if (p.isPunct('::')) {
    p.next();
    namespace = first.text;
    name = p.expectIdent('a function name after "::"').text;
  }
  const label = namespace === 'global' ? `${name}()` : `${namespace}::${name}()`;
  p.expectPunct('(', `after ${label.slice(0, -2)}`);

  const custom = p.functions.get(`${namespace}::${name}`);
  if (custom) {
    const { args } = parseArguments(p, () => p.parseExpr(0));
    const [argument] = args;
    if (args.length !== 1 || !argument) p.fail(first, `${label} takes 1 argument, got ${args.length}`);
    return inlineCustomFunction(p, custom, argument, first.start);
  }
  if (namespace === 'global' && name === 'select') return parseSelect(p, first);

  const fn = findFunction(namespace, name);
  if (!fn) {
    if (!hasNamespace(namespace)) p.fail(first, `unknown function namespace "${namespace}"`);
    if (namespace === 'global' && (name === 'order' || name === 'score')) p.fail(first, `${label} must follow a pipe: ... | ${label}`);
    p.fail(first, `unknown function ${label}`);
  }
  if (fn.scoreOnly && !p.boostAllowed) p.fail(first, `${label} can only be used inside score()`);

  let selector: SelectorNode | null = null;
  let index = 0;
  const { args, end } = parseArguments(p, () => {
    if (index++ === fn.selectorArgument) {
      selector = parseSelector(p);
      return null;
    }
    return p.parseExpr(0);
  });
  const count = args.length;
  const [min, max] = fn.arity;
  if (count < min || count > max) {
    const expected = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
    const singular = max === 1 || (min === 1 && max === Infinity);
    p.fail(first, `${label} takes ${expected} argument${singular ? '' : 's'}, got ${count}`);
  }
  const exprs = args.filter((a): a is ExprNode => a !== null);
  const node: FuncCallNode = { type: 'FuncCall', namespace, name, args: exprs, selector, start: first.start, end };
  return node;
}

/** Comma-separated arguments up to and including `)`; a trailing comma is allowed. */
function parseArguments<T>(p: Parser, parseOne: () => T): { args: T[]; end: number } {
  const args: T[] = [];
  while (!p.isPunct(')')) {
    args.push(parseOne());
    if (!p.isPunct(',')) break;
    p.next();
  }
  return { args, end: p.expectPunct(')', 'to close the argument list').end };
}

/** `select(cond => value, ..., fallback)`: the fallback, if any, comes last. */
function parseSelect(p: Parser, first: Ident): SelectNode {
  const alternatives: SelectNode['alternatives'] = [];
  let fallback: ExprNode | null = null;
  const { end } = parseArguments(p, () => {
    const expr = p.parseExpr(0);
    if (fallback) p.fail(expr, 'the fallback of select() must be its last argument');
    if (p.isPunct('=>')) {
      p.next();
      alternatives.push({ condition: expr, value: p.parseExpr(0) });
    } else {
      fallback = expr;
    }
  });
  return { type: 'Select', alternatives, fallback, start: first.start, end };
}

/** After `base`, at `|`: `order(term asc|desc, ...)` or `score(term, ...)`. */
export function parsePipe(p: Parser, base: ExprNode): ExprNode {
  const bar = p.next();
  let nameToken = p.expectIdent('a function name after "|"');
  if (p.isPunct('::')) {
    if (nameToken.text !== 'global') p.fail(nameToken, 'pipe functions are in the global namespace');
    p.next();
    nameToken = p.expectIdent('a function name after "::"');
  }
  const name = nameToken.text;
  if (name !== 'order' && name !== 'score') p.fail(nameToken, `unknown pipe function ${name}(); expected order() or score()`);
  p.expectPunct('(', `after ${name}`);

  if (name === 'order') {
    const { args: terms, end } = parseArguments(p, (): OrderTerm => {
      const expr = p.parseExpr(0);
      const direction = p.isIdent('asc') || p.isIdent('desc') ? p.next() : null;
      // asc and desc bind like comparisons, tighter than && and ||: `a && b asc` is `a && (b asc)`.
      if (direction && (expr.type === 'And' || expr.type === 'Or')) {
        p.fail(direction, 'asc/desc would apply to the right side of && or ||; put the term in parentheses');
      }
      return { expr, descending: direction?.kind === 'ident' && direction.text === 'desc' };
    });
    if (terms.length === 0) p.fail(nameToken, 'order() takes at least 1 argument');
    return { type: 'Order', base, terms, start: base.start, end };
  }

  if (!isDocumentStream(base)) p.fail(bar, 'score() ranks documents: use it as *[...] | score(...)');
  const allowed = p.boostAllowed;
  p.boostAllowed = true;
  const { args: terms, end } = parseArguments(p, () => p.parseExpr(0));
  p.boostAllowed = allowed;
  if (terms.length === 0) p.fail(nameToken, 'score() takes at least 1 argument');
  return { type: 'Score', base, terms, start: base.start, end };
}

/** `*`, possibly filtered, sliced, ordered or scored: what score() may rank. */
function isDocumentStream(node: ExprNode): boolean {
  switch (node.type) {
    case 'Everything':
      return true;
    case 'Filter': case 'Slice': case 'Order': case 'Score': case 'Group':
      return isDocumentStream(node.base);
    default:
      return false;
  }
}

/**
 * Reads the `fn` declarations at the start of the query and checks each body once. Bodies are
 * parsed again at every call site with the argument in place of the parameter.
 */
export function readDeclarations(p: Parser): CustomFunctions {
  const functions: CustomFunctions = new Map();
  while (p.isIdent('fn') && p.peek(1).kind === 'ident') {
    const fnToken = p.next();
    const namespace = p.expectIdent('a namespace after "fn"').text;
    p.expectPunct('::', 'between the namespace and the name of the function');
    const name = p.expectIdent('a function name').text;
    p.expectPunct('(', 'before the parameters');
    const parameters = parseArguments(p, () => p.next()).args;
    const [parameter, extra] = parameters;
    if (parameters.some((t) => t.kind !== 'param')) p.fail(parameters.find((t) => t.kind !== 'param') ?? fnToken, 'expected a parameter such as $name');
    if (!parameter || parameter.kind !== 'param' || extra) p.fail(extra ?? fnToken, 'a custom function takes exactly one parameter');
    p.expectPunct('=', 'before the function body');
    const bodyIndex = p.position;
    // Skip the body for now: it may call functions declared after it.
    while (!p.isPunct(';')) {
      if (p.peek().kind === 'eof') p.fail(p.peek(), 'expected ";" after the function body');
      p.next();
    }
    p.next();
    functions.set(`${namespace}::${name}`, { key: `${namespace}::${name}`, parameter: parameter.text, bodyIndex });
  }
  p.functions = functions;
  for (const fn of functions.values()) {
    const placeholder: ExprNode = { type: 'Parameter', name: fn.parameter, start: 0, end: 0 };
    inlineCustomFunction(p, fn, placeholder, 0);
  }
  return functions;
}

function inlineCustomFunction(p: Parser, fn: CustomFunction, argument: ExprNode, callStart: number): ExprNode {
  const expanding = p.expanding;
  if (expanding.includes(fn.key)) p.fail(callStart, `custom function ${fn.key}() calls itself`);
  const saved = { position: p.position, binding: p.binding };
  p.position = fn.bodyIndex;
  p.binding = { name: fn.parameter, argument, uses: 0 };
  expanding.push(fn.key);
  try {
    const body = p.parseExpr(0);
    p.expectPunct(';', 'after the function body');
    const object = bodyObject(body, argument);
    if (!object || p.binding.uses !== 1) {
      p.fail(body, `the body of ${fn.key}() must be $${fn.parameter}{...}, $${fn.parameter}->{...}, $${fn.parameter}[]{...} or $${fn.parameter}[]->{...}, using the parameter only there`);
    }
    if (new ExpressionFacts().of(object, false).reach >= 1) p.fail(object, `^ in the body of ${fn.key}() reaches outside the function`);
    return body;
  } finally {
    expanding.pop();
    p.position = saved.position;
    p.binding = saved.binding;
  }
}

/** The projection object of an allowed body shape, or null. */
function bodyObject(body: ExprNode, argument: ExprNode): ExprNode | null {
  const isArgument = (n: ExprNode): boolean => n === argument;
  const isThis = (n: ExprNode): boolean => n.type === 'This';
  const projectionOf = (n: ExprNode, base: (b: ExprNode) => boolean): ExprNode | null => {
    if (n.type !== 'Projection') return null;
    const b = n.base;
    return base(b) || (b.type === 'Deref' && base(b.base)) ? n.expr : null;
  };
  if (body.type === 'Map' && body.base.type === 'ArrayCoerce' && isArgument(body.base.base)) return projectionOf(body.expr, isThis);
  return projectionOf(body, isArgument);
}
