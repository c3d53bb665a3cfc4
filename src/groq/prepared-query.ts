// A query made ready to run once, to be executed any number of times: parsed, planned (its scans
// as requests a source can answer from indexes), compiled into executors, and, when its result is
// made from one scan document by document, with the plan for running it a page at a time.
import type { ExprNode } from './ast.ts';
import { compileQuery, type CompiledQuery } from './evaluator/compile.ts';
import { parseDetailed } from './parser.ts';
import { planQuery } from './planner/plan-query.ts';
import { streamPlanOf } from './planner/stream.ts';

export interface PreparedQuery {
  /** The planned tree (the parsed one, unplanned): what describePlan() describes. */
  readonly tree: ExprNode;
  readonly planned: boolean;
  /**
   * The tree depends on the parameter values it was prepared with (`[$p]` is an element, an
   * attribute or a filter by its value): it serves only executions with those values.
   */
  readonly readsParams: boolean;
  /** The tree compiled, with its stream plan (compiled.stream) when it has one. */
  readonly compiled: CompiledQuery;
}

/**
 * Parses (text), plans (unless `planner` is false) and compiles a query for execute(). A tree
 * given already parsed counts as reading its parameters: how it was parsed is not known here.
 */
export function prepare(query: string | ExprNode, options: { params?: Readonly<Record<string, unknown>>; planner?: boolean } = {}): PreparedQuery {
  const parsed = typeof query === 'string' ? parseDetailed(query, { params: options.params ?? {} }) : { tree: query, readsParams: true };
  const planned = options.planner !== false;
  const tree = planned ? planQuery(parsed.tree) : parsed.tree;
  const compiled = compileQuery(tree, planned ? streamPlanOf(tree) : null);
  return { tree, planned, readsParams: parsed.readsParams, compiled };
}

export function isPrepared(query: string | ExprNode | PreparedQuery): query is PreparedQuery {
  return typeof query === 'object' && 'compiled' in query && 'readsParams' in query;
}
