// Resolves a chain of traversal steps (`.a`, `[1]`, `[x > 1]`, `[0..2]`, `[]`, `{...}`, `->`) into
// explicit AST nodes. GROQ decides whether a step applies to an array as a whole or to each of its
// elements from the steps around it: in `a[].b[0]`, `.b[0]` is applied to each element of `a[]`,
// but in `a[0].b` nothing is mapped. Each step is classified by what it consumes and produces
// ("many" = an array, "one" = any value), and folding the chain from the right decides where a
// Map (or a FlatMap, when the mapped part itself yields arrays) has to be inserted.
import type { ExprNode, Span } from './ast.ts';

type Build = (base: ExprNode) => ExprNode;

/**
 * - plain: attribute access and dereference, one value to one value
 * - element: `[index]`, an array to one value
 * - array: filters, slices and `[]`, an array to an array
 * - projection: `{...}` on one value, but mapped when an array step follows it
 */
export type StepKind = 'plain' | 'element' | 'array' | 'projection';
export type Step = Span & { kind: StepKind; build: Build };

type Shape = 'many-many' | 'many-one' | 'one-many' | 'one-one';
type Chain = { shape: Shape; build: Build };

const startsWithMany = (shape: Shape): boolean => shape === 'many-many' || shape === 'many-one';
const endsWithMany = (shape: Shape): boolean => shape === 'many-many' || shape === 'one-many';
const then = (first: Build, second: Build): Build => (base) => second(first(base));

function mapOver(type: 'Map' | 'FlatMap', inner: Build, span: Span): Build {
  return (base) => {
    const expr = inner({ type: 'This', start: span.start, end: span.start });
    return { type, base, expr, start: base.start, end: Math.max(expr.end, span.end) };
  };
}

function fold(step: Step, rest: Chain | null): Chain {
  const span: Span = step;
  switch (step.kind) {
    case 'array':
      if (!rest) return { shape: 'many-many', build: step.build };
      if (startsWithMany(rest.shape)) return { shape: rest.shape === 'many-one' ? 'many-one' : 'many-many', build: then(step.build, rest.build) };
      // The rest works on single values: apply it to each element, splicing arrays it yields.
      return { shape: 'many-many', build: then(step.build, mapOver(rest.shape === 'one-many' ? 'FlatMap' : 'Map', rest.build, span)) };
    case 'plain':
      if (!rest) return { shape: 'one-one', build: step.build };
      return { shape: endsWithMany(rest.shape) ? 'one-many' : 'one-one', build: then(step.build, rest.build) };
    case 'element':
      if (!rest) return { shape: 'many-one', build: step.build };
      return { shape: endsWithMany(rest.shape) ? 'many-many' : 'many-one', build: then(step.build, rest.build) };
    case 'projection':
      if (!rest) return { shape: 'one-one', build: step.build };
      if (startsWithMany(rest.shape)) return { shape: rest.shape, build: then(mapOver('Map', step.build, span), rest.build) };
      return { shape: rest.shape, build: then(step.build, rest.build) };
  }
}

/**
 * Applies the steps to `base`. Bases that are arrays by construction (`*`, array literals, pipe
 * results) start the chain as an array, so that `*.a` and `*{a}` apply to every document.
 */
export function applyTraversal(base: ExprNode, steps: readonly Step[], baseIsArray: boolean): ExprNode {
  let chain: Chain | null = null;
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i];
    if (step) chain = fold(step, chain);
  }
  if (baseIsArray) chain = fold({ kind: 'array', build: (b) => b, start: base.start, end: base.end }, chain);
  return chain ? chain.build(base) : base;
}
