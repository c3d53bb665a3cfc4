import { describe, expect, it } from 'vitest';
import { GroqSyntaxError, parse, type ExprNode } from '../../src/groq/index.ts';
import { MAX_NESTING, MAX_TREE_HEIGHT } from '../../src/groq/parser.ts';

/** The AST as nested tuples of node types and key fields, without spans. */
function shape(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(shape);
  if (typeof node !== 'object' || node === null) return node;
  const { start: _start, end: _end, ...rest } = node as Record<string, unknown>;
  return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, shape(v)]));
}

function syntaxError(query: string): GroqSyntaxError {
  try {
    parse(query);
  } catch (error) {
    if (error instanceof GroqSyntaxError) return error;
    throw error;
  }
  throw new Error(`expected a syntax error for ${query}`);
}

const attr = (name: string, base: unknown = null) => ({ type: 'AccessAttribute', base, name });
const self = { type: 'This' };

describe('parser: traversals', () => {
  it('maps attribute access over `*` and over `[]`', () => {
    expect(shape(parse('*.a'))).toEqual({ type: 'Map', base: { type: 'Everything' }, expr: attr('a', self) });
    expect(shape(parse('a[].b'))).toEqual({ type: 'Map', base: { type: 'ArrayCoerce', base: attr('a') }, expr: attr('b', self) });
  });

  it('flattens when the mapped part yields arrays', () => {
    expect(shape(parse('a[].b[]'))).toEqual({
      type: 'FlatMap',
      base: { type: 'ArrayCoerce', base: attr('a') },
      expr: { type: 'ArrayCoerce', base: attr('b', self) },
    });
  });

  it('applies an element access to the array, not to its elements', () => {
    expect(shape(parse('*[a > 1][0].b'))).toEqual(
      attr('b', {
        type: 'AccessElement',
        index: 0,
        base: { type: 'Filter', base: { type: 'Everything' }, expr: { type: 'OpCall', op: '>', left: attr('a'), right: { type: 'Value', value: 1 } } },
      }),
    );
  });

  it('tells elements, attributes, slices and filters apart by the bracket contents', () => {
    expect((parse('a[-1]') as { type: string }).type).toBe('AccessElement');
    expect(shape(parse('a["b"]'))).toEqual(attr('b', attr('a')));
    expect((parse('a[1..2]') as { type: string }).type).toBe('Slice');
    expect((parse('a[$from...$to]') as { type: string }).type).toBe('Slice');
    expect((parse('a[b]') as { type: string }).type).toBe('Filter');
    expect((parse('a[$i]', { params: { i: 1 } }) as { type: string }).type).toBe('AccessElement');
    expect((parse('a[$i]') as { type: string }).type).toBe('Filter');
  });

  it('reads dereference with and without an attribute', () => {
    expect(shape(parse('a->'))).toEqual({ type: 'Deref', base: attr('a') });
    expect(shape(parse('a->b'))).toEqual(attr('b', { type: 'Deref', base: attr('a') }));
  });

  it('maps a projection over the array a later array step works on', () => {
    expect(shape(parse('*{a}[0]'))).toEqual({
      type: 'AccessElement',
      index: 0,
      base: { type: 'Map', base: { type: 'Everything' }, expr: { type: 'Projection', base: self, expr: { type: 'Object', attributes: [{ type: 'ObjectAttributeValue', name: 'a', value: attr('a') }] } } },
    });
  });

  it('counts parent levels', () => {
    expect(shape(parse('^.^.^.a'))).toEqual(attr('a', { type: 'Parent', levels: 3 }));
  });
});

describe('parser: operators', () => {
  const op = (o: string, left: unknown, right: unknown) => ({ type: 'OpCall', op: o, left, right });
  const v = (value: unknown) => ({ type: 'Value', value });

  it('follows precedence and associativity', () => {
    expect(shape(parse('1 + 2 * 3'))).toEqual(op('+', v(1), op('*', v(2), v(3))));
    expect(shape(parse('1 - 2 - 3'))).toEqual(op('-', op('-', v(1), v(2)), v(3)));
    expect(shape(parse('2 ** 3 ** 2'))).toEqual(op('**', v(2), op('**', v(3), v(2))));
    expect(shape(parse('-2 ** 2'))).toEqual({ type: 'Neg', base: op('**', v(2), v(2)) });
    expect(shape(parse('!a == b'))).toEqual(op('==', { type: 'Not', base: attr('a') }, attr('b')));
    expect(shape(parse('a || b && c'))).toEqual({ type: 'Or', left: attr('a'), right: { type: 'And', left: attr('b'), right: attr('c') } });
  });

  it('reads ranges after `in`, with or without parentheses', () => {
    expect(shape(parse('a in 1..2'))).toEqual({ type: 'InRange', base: attr('a'), left: v(1), right: v(2), inclusive: true });
    expect(shape(parse('a in (1...2)'))).toEqual({ type: 'InRange', base: attr('a'), left: v(1), right: v(2), inclusive: false });
    expect(shape(parse('a in ["x"]'))).toEqual(op('in', attr('a'), { type: 'Array', elements: [{ value: v('x'), splat: false }] }));
  });

  it('rejects chained comparisons', () => {
    expect(syntaxError('1 < 2 < 3').detail).toContain('comparisons cannot be chained');
  });

  it('applies pipes to the whole traversal, and traversals after a pipe to its result', () => {
    const tree = parse('*[a] | order(b desc, c)[0...2]') as Extract<ExprNode, { type: 'Slice' }>;
    expect(tree.type).toBe('Slice');
    expect(shape(tree.base)).toEqual({
      type: 'Order',
      base: { type: 'Filter', base: { type: 'Everything' }, expr: attr('a') },
      terms: [
        { expr: attr('b'), descending: true },
        { expr: attr('c'), descending: false },
      ],
    });
  });
});

describe('parser: objects and calls', () => {
  it('names attributes from the expression they start with', () => {
    const tree = parse('{a, b->, "d": 1, ..., ...e, f => {"g": 2}, h[]{i}}') as Extract<ExprNode, { type: 'Object' }>;
    expect(tree.attributes.map((a) => (a.type === 'ObjectAttributeValue' ? a.name : a.type))).toEqual([
      'a', 'b', 'd', 'ObjectSplat', 'ObjectSplat', 'ObjectConditionalSplat', 'h',
    ]);
  });

  it('rejects attributes whose name cannot be told', () => {
    expect(syntaxError('{1 + 2}').detail).toContain('cannot tell the attribute name');
    expect(syntaxError('{a.b}').detail).toContain('cannot tell the attribute name');
    expect(syntaxError('{"a" + "b": 1}').detail).toContain('string literal');
  });

  it('parses select() alternatives and fallback', () => {
    expect(shape(parse('select(a => 1, 2)'))).toEqual({ type: 'Select', alternatives: [{ condition: attr('a'), value: { type: 'Value', value: 1 } }], fallback: { type: 'Value', value: 2 } });
    expect(syntaxError('select(1, a => 2)').detail).toContain('fallback');
  });

  it('checks functions against the registry', () => {
    expect(syntaxError('nope(1)').detail).toBe('unknown function nope()');
    expect(syntaxError('nope::x(1)').detail).toBe('unknown function namespace "nope"');
    expect(syntaxError('string::nope(1)').detail).toBe('unknown function string::nope()');
    expect(syntaxError('count()').detail).toBe('count() takes 1 argument, got 0');
    expect(syntaxError('count(1, 2)').detail).toBe('count() takes 1 argument, got 2');
    expect(syntaxError('round(1, 2, 3)').detail).toBe('round() takes 1 to 2 arguments, got 3');
    expect(syntaxError('references()').detail).toBe('references() takes at least 1 argument, got 0');
    expect(syntaxError('order(a)').detail).toContain('must follow a pipe');
    expect(syntaxError('boost(a, 1)').detail).toContain('only be used inside score()');
    expect(syntaxError('* | nope(a)').detail).toContain('unknown pipe function');
    expect(syntaxError('*[0] | score(a)').detail).toContain('score() ranks documents');
    expect(syntaxError('* | order(a && b asc)').detail).toContain('asc/desc');
  });

  it('parses diff:: selectors and rejects expressions there', () => {
    const call = parse('diff::changedAny(a, b, x.(y, z[w == 1]))') as Extract<ExprNode, { type: 'FuncCall' }>;
    expect(call.args).toHaveLength(2);
    expect(call.selector?.type).toBe('SelectorGroup');
    expect(syntaxError('diff::changedAny(a, b, x + 1)').detail).toContain('expected ")"');
    expect(syntaxError('diff::changedAny(a, b, x[0])').detail).toContain('by index');
    expect(syntaxError('diff::changedAny(a, b, "x")').detail).toContain('expected a selector');
  });
});

describe('parser: custom functions', () => {
  it('inlines the body with the argument in place of the parameter', () => {
    expect(shape(parse('fn my::f($x) = $x{a}; my::f(b)'))).toEqual(
      shape(parse('b{a}')),
    );
    expect(shape(parse('fn my::g($x) = $x[]->{a}; fn my::f($x) = $x{"g": my::g(c)}; my::f(b)'))).toEqual(shape(parse('b{"g": c[]->{a}}')));
  });

  it.each([
    ['fn my::f($x, $y) = $x{a}; 1', 'exactly one parameter'],
    ['fn my::f($x) = $x.a; 1', 'must be $x{...}'],
    ['fn my::f($x) = $x{"a": $x}; 1', 'must be $x{...}'],
    ['fn my::f($x) = $x{"a": ^.a}; 1', 'reaches outside the function'],
    ['fn my::f($x) = $x[]{"a": ^.a}; 1', 'reaches outside the function'],
    ['fn my::f($x) = $x{"a": my::f(b)}; 1', 'calls itself'],
    ['fn my::f($x) = $x{a} 1', 'expected ";"'],
    ['fn my::f($x) = $x{a}; my::f()', 'takes 1 argument, got 0'],
  ])('rejects %j', (query, message) => {
    expect(syntaxError(query).detail).toContain(message);
  });
});

describe('parser: syntax errors', () => {
  it('name the position, line and column, and what was expected', () => {
    const error = syntaxError('*[_type == "post"]{\n  title,\n  body[\n}');
    expect(error).toMatchObject({ code: 'GROQ_SYNTAX_ERROR', line: 4, column: 1, position: 37 });
    expect(error.detail).toBe('expected an expression, found "}"');
    expect(syntaxError('*[a == 1').detail).toBe('expected "]" to close the brackets, found the end of the query');
    expect(syntaxError('a b').detail).toBe('expected an operator or the end of the query, found "b"');
    expect(syntaxError('').detail).toBe('expected an expression, found the end of the query');
  });

  it('reject deep nesting with an error instead of overflowing the stack', () => {
    const depth = 100_000;
    for (const query of ['('.repeat(depth) + '1' + ')'.repeat(depth), '['.repeat(depth) + ']'.repeat(depth), '!'.repeat(depth) + 'true', '-'.repeat(depth) + '1']) {
      expect(syntaxError(query).detail).toContain(`nests deeper than ${MAX_NESTING} levels`);
    }
  });

  it('reject trees too tall to evaluate, such as very long chains', () => {
    expect(syntaxError(`a${'.b'.repeat(5000)}`).detail).toContain(`nests deeper than ${MAX_TREE_HEIGHT} levels`);
    expect(syntaxError(Array.from({ length: 5000 }, () => '1').join(' + ')).detail).toContain(`nests deeper than ${MAX_TREE_HEIGHT} levels`);
    expect(() => parse(`a${'.b'.repeat(200)}`)).not.toThrow();
  });
});
