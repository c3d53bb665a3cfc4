// A precedence-climbing parser from tokens to the typed AST. Operator precedence, from loosest:
//   ||  &&  (== != < <= > >= in match: not chainable)  (+ -)  (* / %)  ** (right-assoc)
// then prefix `-` (binds looser than `**`: -2**2 is -4), prefix `+` and `!`, and tightest of all
// the postfix steps: traversals (`.a`, `[...]`, `{...}`, `->`) and pipe calls (`| order(...)`).
import type { ExprNode, Span } from './ast.ts';
import { GroqSyntaxError } from './errors.ts';
import { tokenize, type Token } from './lexer.ts';
import { applyTraversal, type Step } from './traversal.ts';
import { parseCall, parsePipe, type CustomFunctions, readDeclarations } from './parser-calls.ts';
import { parseArray, parseObject } from './parser-literals.ts';
import { parseStep } from './parser-steps.ts';

/** Deeper nesting is rejected with a syntax error instead of exhausting the stack. */
export const MAX_NESTING = 128;
/** The AST may be taller than the nesting (a long chain `a.b.c...`), but not unboundedly. */
export const MAX_TREE_HEIGHT = 512;

export type ParseOptions = {
  /**
   * Parameter values, if known. They settle what `[$p]` means: an element access when $p is a
   * number, an attribute access when it is a string, a filter otherwise. Without them, `[$p]` is a
   * filter. Slices with parameter bounds (`[$from...$to]`) need no values at parse time.
   */
  params?: Readonly<Record<string, unknown>>;
};

/** Parses a GROQ query into its AST; throws GroqSyntaxError naming the position and what was expected. */
export function parse(query: string, options: ParseOptions = {}): ExprNode {
  return parseDetailed(query, options).tree;
}

/**
 * Like parse(), and tells whether the tree depends on the values of `params` (a `[$p]` that a
 * value settled): a tree that does not can be reused with any parameters.
 */
export function parseDetailed(query: string, options: ParseOptions = {}): { tree: ExprNode; readsParams: boolean } {
  const parser = new Parser(query, tokenize(query), options.params);
  const tree = parser.parseQuery();
  checkHeight(query, tree);
  return { tree, readsParams: parser.paramsRead };
}

type BinaryOperator = { prec: number; right?: boolean; comparison?: boolean };
const BINARY_OPERATORS: Record<string, BinaryOperator> = {
  '||': { prec: 2 },
  '&&': { prec: 3 },
  '==': { prec: 4, comparison: true },
  '!=': { prec: 4, comparison: true },
  '<': { prec: 4, comparison: true },
  '<=': { prec: 4, comparison: true },
  '>': { prec: 4, comparison: true },
  '>=': { prec: 4, comparison: true },
  in: { prec: 4, comparison: true },
  match: { prec: 4, comparison: true },
  '+': { prec: 6 },
  '-': { prec: 6 },
  '*': { prec: 7 },
  '/': { prec: 7 },
  '%': { prec: 7 },
  '**': { prec: 8, right: true },
};
// A Map, not the object itself: an identifier like `constructor` must not find Object.prototype's.
const BINARY = new Map(Object.entries(BINARY_OPERATORS));
const PREC_NEG = 8;
const PREC_PREFIX = 10;

/** The binary operator a token stands for, if any. */
export function binaryOperator(t: Token): BinaryOperator | undefined {
  return t.kind === 'punct' || t.kind === 'ident' ? BINARY.get(t.text) : undefined;
}

/** In a custom function body, the function's parameter stands for the call's argument. */
export type Binding = { name: string; argument: ExprNode; uses: number };

export class Parser {
  readonly query: string;
  private readonly params: Readonly<Record<string, unknown>> | undefined;
  /** Whether a parameter's value was looked up (the tree then depends on it). */
  paramsRead = false;
  private readonly tokens: Token[];
  private index = 0;
  private depth = 0;
  /** boost() is only allowed while parsing the terms of score(). */
  boostAllowed = false;
  binding: Binding | null = null;
  functions: CustomFunctions = new Map();
  /** Custom functions being inlined, innermost last: calling one of them again would never end. */
  readonly expanding: string[] = [];

  constructor(query: string, tokens: Token[], params: Readonly<Record<string, unknown>> | undefined) {
    this.query = query;
    this.tokens = tokens;
    this.params = params;
  }

  /** A parameter's value for constant folding, undefined when not given. */
  readonly paramValue = (name: string): unknown => {
    this.paramsRead = true;
    return this.params && Object.hasOwn(this.params, name) ? (this.params[name] ?? null) : undefined;
  };

  // --- tokens -------------------------------------------------------------------------------

  peek(offset = 0): Token {
    return this.tokens[Math.min(this.index + offset, this.tokens.length - 1)] as Token;
  }

  next(): Token {
    const token = this.peek();
    if (this.index < this.tokens.length - 1) this.index++;
    return token;
  }

  get position(): number {
    return this.index;
  }

  set position(index: number) {
    this.index = index;
  }

  isPunct(text: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === 'punct' && t.text === text;
  }

  isIdent(text?: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === 'ident' && (text === undefined || t.text === text);
  }

  expectPunct(text: string, context: string): Token {
    if (!this.isPunct(text)) this.fail(this.peek(), `expected "${text}" ${context}, found ${describe(this.peek())}`);
    return this.next();
  }

  expectIdent(context: string): Extract<Token, { kind: 'ident' }> {
    const t = this.peek();
    if (t.kind !== 'ident') return this.fail(t, `expected ${context}, found ${describe(t)}`);
    this.next();
    return t;
  }

  fail(at: Span | number, detail: string): never {
    throw new GroqSyntaxError(this.query, typeof at === 'number' ? at : at.start, detail);
  }

  // --- query and expressions ------------------------------------------------------------------

  parseQuery(): ExprNode {
    this.functions = readDeclarations(this);
    const expr = this.parseExpr(0);
    const rest = this.peek();
    if (rest.kind !== 'eof') {
      if (binaryOperator(rest)?.comparison) this.fail(rest, `comparisons cannot be chained; add parentheses before ${describe(rest)}`);
      this.fail(rest, `expected an operator or the end of the query, found ${describe(rest)}`);
    }
    return expr;
  }

  parseExpr(minPrec: number): ExprNode {
    if (++this.depth > MAX_NESTING) this.fail(this.peek(), `the query nests deeper than ${MAX_NESTING} levels`);
    let left = this.parseUnary();
    for (;;) {
      const t = this.peek();
      const op = binaryOperator(t);
      if (!op || op.prec < minPrec || (t.kind !== 'punct' && t.kind !== 'ident')) break;
      this.next();
      left = this.parseBinary(left, t, op.prec, op.right === true);
      if (op.comparison) {
        const after = this.peek();
        if (binaryOperator(after)?.comparison) this.fail(after, `comparisons cannot be chained; add parentheses before ${describe(after)}`);
      }
    }
    this.depth--;
    return left;
  }

  private parseBinary(left: ExprNode, opToken: Extract<Token, { text: string }>, prec: number, rightAssoc: boolean): ExprNode {
    const op = opToken.text;
    if (op === 'in') return this.parseIn(left);
    const right = this.parseExpr(rightAssoc ? prec : prec + 1);
    const span = { start: left.start, end: right.end };
    switch (op) {
      case '||':
        return { type: 'Or', left, right, ...span };
      case '&&':
        return { type: 'And', left, right, ...span };
      case '==': case '!=': case '<': case '<=': case '>': case '>=':
      case 'match': case '+': case '-': case '*': case '/': case '%': case '**':
        return { type: 'OpCall', op, left, right, ...span };
      default:
        return this.fail(opToken, `unknown operator ${op}`);
    }
  }

  /** `x in y`, `x in a..b`, `x in a...b`, and the same with the range in parentheses. */
  private parseIn(left: ExprNode): ExprNode {
    const open = this.isPunct('(') ? this.next() : null;
    const right = open ? this.parseExpr(0) : this.parseExpr(5);
    if (this.isPunct('..') || this.isPunct('...')) {
      const inclusive = this.isPunct('..');
      this.next();
      const upper = open ? this.parseExpr(0) : this.parseExpr(5);
      const end = open ? this.expectPunct(')', 'to close the range').end : upper.end;
      return { type: 'InRange', base: left, left: right, right: upper, inclusive, start: left.start, end };
    }
    if (!open) return { type: 'OpCall', op: 'in', left, right, start: left.start, end: right.end };
    const close = this.expectPunct(')', 'to close the group');
    const group: ExprNode = this.parsePostfix({ type: 'Group', base: right, start: open.start, end: close.end }, false);
    return { type: 'OpCall', op: 'in', left, right: group, start: left.start, end: group.end };
  }

  private parseUnary(): ExprNode {
    const t = this.peek();
    if (t.kind === 'punct' && (t.text === '-' || t.text === '+' || t.text === '!')) {
      this.next();
      const base = this.parseExpr(t.text === '-' ? PREC_NEG : PREC_PREFIX);
      const span = { start: t.start, end: base.end };
      if (t.text === '-') return { type: 'Neg', base, ...span };
      if (t.text === '+') return { type: 'Pos', base, ...span };
      return { type: 'Not', base, ...span };
    }
    const primary = this.parsePrimary();
    const startsArray = primary.type === 'Everything' || primary.type === 'Array';
    return this.parsePostfix(primary, startsArray);
  }

  private parsePrimary(): ExprNode {
    const t = this.next();
    const span = { start: t.start, end: t.end };
    switch (t.kind) {
      case 'number':
        return { type: 'Value', value: t.value, ...span };
      case 'string':
        return { type: 'Value', value: t.value, ...span };
      case 'param':
        return this.parameter(t);
      case 'ident':
        if (t.text === 'true' || t.text === 'false') return { type: 'Value', value: t.text === 'true', ...span };
        if (t.text === 'null') return { type: 'Value', value: null, ...span };
        if (this.isPunct('(') || this.isPunct('::')) return parseCall(this, t);
        return { type: 'AccessAttribute', base: null, name: t.text, ...span };
      case 'punct':
        return this.parsePunctPrimary(t);
      case 'eof':
        return this.fail(t, 'expected an expression, found the end of the query');
    }
  }

  private parsePunctPrimary(t: Token & { kind: 'punct' }): ExprNode {
    const span = { start: t.start, end: t.end };
    switch (t.text) {
      case '*':
        return { type: 'Everything', ...span };
      case '@':
        return { type: 'This', ...span };
      case '^': {
        let levels = 1;
        let end = t.end;
        while (this.isPunct('.') && this.isPunct('^', 1)) {
          this.next();
          end = this.next().end;
          levels++;
        }
        return { type: 'Parent', levels, start: t.start, end };
      }
      case '(': {
        const base = this.parseExpr(0);
        if (this.isPunct(',')) this.fail(this.peek(), 'a tuple "(a, b)" is only allowed as a diff:: selector');
        const close = this.expectPunct(')', 'to close the group');
        return { type: 'Group', base, start: t.start, end: close.end };
      }
      case '[':
        return parseArray(this, t);
      case '{':
        return parseObject(this, t);
      default:
        return this.fail(t, `expected an expression, found ${describe(t)}`);
    }
  }

  private parameter(t: Token & { kind: 'param' }): ExprNode {
    const binding = this.binding;
    if (binding && binding.name === t.text) {
      binding.uses++;
      return binding.argument;
    }
    return { type: 'Parameter', name: t.text, start: t.start, end: t.end };
  }

  // --- postfix: traversals and pipes ----------------------------------------------------------

  /** Collects traversal steps and pipe calls after `base`, resolving each run of steps. */
  parsePostfix(base: ExprNode, baseIsArray: boolean): ExprNode {
    let steps: Step[] = [];
    let current = base;
    let currentIsArray = baseIsArray;
    // Each step is a level of the tree; resolving a longer chain would exhaust the stack first.
    let length = 0;
    for (;;) {
      if (++length > MAX_TREE_HEIGHT) throw new GroqSyntaxError(this.query, base.start, `the query nests deeper than ${MAX_TREE_HEIGHT} levels`);
      const step = parseStep(this);
      if (step) {
        steps.push(step);
        continue;
      }
      if (!this.isPunct('|')) break;
      // A pipe call applies to everything before it; the steps so far are resolved first.
      current = applyTraversal(current, steps, currentIsArray);
      steps = [];
      current = parsePipe(this, current);
      currentIsArray = true;
    }
    return steps.length > 0 ? applyTraversal(current, steps, currentIsArray) : current;
  }
}

export function describe(t: Token): string {
  switch (t.kind) {
    case 'eof':
      return 'the end of the query';
    case 'string':
      return 'a string';
    case 'number':
      return `the number ${t.value}`;
    case 'param':
      return `$${t.text}`;
    default:
      return `"${t.text}"`;
  }
}

/** Rejects trees too tall to compile and evaluate recursively, without recursing itself. */
function checkHeight(query: string, tree: ExprNode): void {
  const stack: [unknown, number][] = [[tree, 1]];
  while (stack.length > 0) {
    const [value, height] = stack.pop() as [unknown, number];
    if (value === null || typeof value !== 'object') continue;
    const node = value as Record<string, unknown> & Partial<Span>;
    if (height > MAX_TREE_HEIGHT) {
      throw new GroqSyntaxError(query, node.start ?? 0, `the query nests deeper than ${MAX_TREE_HEIGHT} levels`);
    }
    for (const child of Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, Array.isArray(child) ? height : height + 1]);
    }
  }
}
