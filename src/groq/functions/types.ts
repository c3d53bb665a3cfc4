// The shape of a GROQ function in the registry. The parser reads `arity` and the flags; the
// evaluator calls `compile` once per call site and then runs the executor it returns.
import type { ExprNode, FuncCallNode } from '../ast.ts';
import type { Executor } from '../evaluator/scope.ts';
import type { NumberSummary } from '../planner/scan-plan.ts';

/** Allowed argument counts, inclusive; `max` may be Infinity. */
export type Arity = readonly [min: number, max: number];

export type CallSite = {
  readonly node: FuncCallNode;
  /** How many per-element evaluations enclose the call (see the compiler's Context). */
  readonly loops: number;
  /** Compiles an expression that the function evaluates in a nested scope of its own making. */
  compileNested(expr: ExprNode): Executor;
  /** Reserves a slot in the run's cache (`scope.run.cache[slot]`, undefined until set). */
  reserveSlot(): number;
};

export type GroqFunction = {
  readonly arity: Arity;
  /**
   * What the function reads besides its arguments, so that the compiler neither folds nor hoists
   * it wrongly: `this` = the current scope's value, `dataset` = the documents, `context` = the
   * run's clock, identity or project.
   */
  readonly reads?: 'this' | 'dataset' | 'context';
  /** Can return a datetime or a path, which the result must turn into strings. */
  readonly returnsNonJson?: boolean;
  /** boost(): only meaningful as a term of score(). */
  readonly scoreOnly?: boolean;
  /** diff::changedAny/changedOnly: this argument is a selector, not an expression. */
  readonly selectorArgument?: number;
  /**
   * For a function of one array whose value need not depend on the order of the elements (math::min,
   * math::sum): whether it does not for these elements. An aggregate of a streamed scan's items
   * (`math::sum(*[_type == "post"].views)`) then lets the source hand them out in any order (an
   * index's), and is asked again in dataset order when its items came out of order and this says no.
   */
  readonly inAnyOrder?: InAnyOrder;
  /**
   * For a function of one array whose value is the same on the first occurrence of each distinct
   * simple value or null, in their order, as on the whole array (array::unique). A streamed
   * aggregate of one path's scalar values (`array::unique(*[_type == "post"].author._ref)`) may
   * then take just those from the source (DocumentSource.firstValues).
   */
  readonly onFirstOccurrences?: true;
  /**
   * For a function of one array of numbers (math::sum): its value from a summary of them, or
   * undefined when the summary cannot tell it (a sum that depends on the order of its terms). A
   * streamed aggregate of one path's values may then take just the summary from the source
   * (DocumentSource.numbers).
   */
  readonly fromNumbers?: (summary: NumberSummary) => number | null | undefined;
  compile(args: readonly Executor[], site: CallSite): Executor;
};

/** Whether a function's value on these elements is the same in any order of them. */
export type InAnyOrder = (elements: readonly unknown[]) => boolean;

export type Namespace = Readonly<Record<string, GroqFunction>>;
