// Compiles an AST into a tree of closures (executors) once; running the query then only calls
// them. The table COMPILERS is typed over every node kind, so a new kind of node does not compile
// until it has its compiler. Two optimizations happen here, both driven by ../analysis.ts:
// - constant folding: an expression that depends on nothing (`1 + 2`, `lower("A")`) is evaluated
//   at compile time, when its value is immutable (arrays and objects are built afresh);
// - hoisting: a subquery that depends on no scope (`*[_type == "a"]._id` inside a filter) is
//   evaluated at most once per run instead of once per element.
import { ExpressionFacts } from '../analysis.ts';
import type { ExprNode, NodeType } from '../ast.ts';
import type { StreamPlan } from '../planner/stream.ts';
import { compileArrayNodes } from './compile-arrays.ts';
import { compileOperators } from './compile-operators.ts';
import { compileScanNodes } from './compile-scan.ts';
import { compileStream, type CompiledStream } from './compile-stream.ts';
import { compileStructures } from './compile-structures.ts';
import { Scope, type Executor, type Run } from './scope.ts';
import { DateTime } from './values.ts';
import { textUnits, type EvaluationBudget } from './budget.ts';

/** Where an expression is compiled: the kind of scope it runs in, and how often it runs. */
export type Context = {
  readonly hidden: boolean;
  /**
   * How many per-element evaluations (filters, maps, ordering terms) enclose the expression:
   * 0 = it runs once per run; 2 = once per pair of elements, as in a subquery per document.
   */
  readonly loops: number;
  /** Set inside an expression being folded or hoisted: its parts need neither. */
  readonly whole: boolean;
  readonly query: QueryInfo;
};

/** What compiling a whole query learns about it, as it goes. */
export type QueryInfo = {
  /** Cache slots reserved so far (Run.cache). */
  slots: number;
  readonly parameters: Set<string>;
  /** Some function can return datetimes or paths, so the result must be converted to JSON. */
  nonJson: boolean;
  /** What each expression depends on, which decides folding and hoisting. */
  readonly facts: ExpressionFacts;
};

export type Compile<N> = (node: N, c: Context) => Executor;
export type CompilerTable = { [K in NodeType]: Compile<Extract<ExprNode, { type: K }>> };

const COMPILERS: CompilerTable = {
  ...compileStructures,
  ...compileOperators,
  ...compileArrayNodes,
  ...compileScanNodes,
};

/** Marks an unset cache slot (no GROQ value is undefined). */
const UNSET = undefined;

export function compileNode(node: ExprNode, c: Context): Executor {
  if (!c.whole) {
    const facts = c.query.facts.of(node, c.hidden);
    if (facts.reach < 0 && !facts.runDependent && node.type !== 'Value') {
      const value = fold(dispatch(node, { ...c, whole: true }));
      if (value !== TOO_COSTLY && isImmutable(value)) return () => value;
      // An array or object is built afresh each time (a caller may change a result); its
      // immutable parts are still folded.
      return dispatch(node, c);
    }
    if (facts.reach < 0 && facts.scans && c.loops > 0) {
      const slot = c.query.slots++;
      const exec = dispatch(node, { ...c, whole: true, loops: 0 });
      return (scope) => {
        const cache = scope.run.cache;
        let value = cache[slot];
        if (value === UNSET) {
          value = exec(scope);
          cache[slot] = value;
        }
        return value;
      };
    }
  }
  return dispatch(node, c);
}

/** Compiles `node` itself without folding or hoisting it (its parts still are): for nodes a planned node stands for. */
export function compileDirect(node: ExprNode, c: Context): Executor {
  return dispatch(node, c);
}

function dispatch(node: ExprNode, c: Context): Executor {
  const compile = COMPILERS[node.type] as Compile<ExprNode>;
  return compile(node, c);
}

/** The context of an expression evaluated in a scope created for it, once per element. */
export function nestedContext(c: Context, hidden: boolean): Context {
  return { hidden, loops: c.loops + 1, whole: false, query: c.query };
}

function isImmutable(value: unknown): boolean {
  return typeof value !== 'object' || value === null || value instanceof DateTime;
}

/** At most this much work is done to fold one expression; a costlier one is left to the run's own budget. */
const FOLDING_UNITS = 100_000;
const TOO_COSTLY: unique symbol = Symbol('too costly to fold');
class FoldingStopped extends Error {}

class FoldingBudget implements EvaluationBudget {
  private units = 0;
  beginRun(): void {
    this.units = 0;
  }
  charge(units: number): void {
    this.units += units;
    if (this.units > FOLDING_UNITS) throw new FoldingStopped();
  }
  buildsText(length: number): void {
    this.charge(textUnits(length));
  }
  worksOnText(characters: number): void {
    this.charge(textUnits(characters));
  }
}

/** The value of a constant expression, or TOO_COSTLY: a query's text could make it arbitrarily costly. */
function fold(exec: Executor): unknown {
  FOLDING_RUN.budget.beginRun();
  try {
    return exec(FOLDING_SCOPE);
  } catch (error) {
    if (error instanceof FoldingStopped) return TOO_COSTLY;
    throw error;
  }
}

// Folded expressions depend on no scope and nothing of the run, so they never look at either.
const FOLDING_RUN: Run = {
  source: {
    documents: () => {
      throw new Error('BUG: a folded expression read the documents');
    },
    getDocument: () => {
      throw new Error('BUG: a folded expression read a document');
    },
  },
  params: {},
  now: new DateTime(0),
  identity: '',
  project: null,
  cache: [],
  pending: false,
  budget: new FoldingBudget(),
};
const FOLDING_SCOPE = new Scope(null, null, false, FOLDING_RUN);

/** A query compiled: what prepare() keeps and every execution runs. */
export type CompiledQuery = {
  readonly root: Executor;
  /** The size of a run's cache (Run.cache). */
  readonly slots: number;
  /** The parameters the query uses: each must be given a value. */
  readonly parameters: ReadonlySet<string>;
  /** The result may hold datetimes or paths, which become strings. */
  readonly nonJson: boolean;
  /** How to run the query a page of documents at a time, when the planner found it can be. */
  readonly stream: CompiledStream | null;
};

/** Compiles a query (and its stream plan, if any) into executors that share one run's cache. */
export function compileQuery(tree: ExprNode, streamPlan: StreamPlan | null): CompiledQuery {
  const info: QueryInfo = { slots: 0, parameters: new Set(), nonJson: false, facts: new ExpressionFacts() };
  const c: Context = { hidden: false, loops: 0, whole: false, query: info };
  const { root, stream } = streamPlan ? compileStream(streamPlan, c) : { root: compileNode(tree, c), stream: null };
  return { root, slots: info.slots, parameters: info.parameters, nonJson: info.nonJson, stream };
}
