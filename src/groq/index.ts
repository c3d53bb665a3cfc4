// The GROQ engine: parse a query into a typed AST, evaluate it against a DocumentSource.
//
//   import { evaluate } from 'content-service/groq';
//   await evaluate('*[_type == $type]{title}', { dataset: docs, params: { type: 'post' } });
import type { ExprNode } from './ast.ts';
import { GroqParameterError } from './errors.ts';
import { compileQuery } from './evaluator/compile.ts';
import { runQuery, type QueryOutput } from './evaluator/run-query.ts';
import { DateTime } from './evaluator/values.ts';
import { UNLIMITED, type EvaluationBudget } from './evaluator/budget.ts';
import { parseDetailed } from './parser.ts';
import { planQuery } from './planner/plan-query.ts';
import { streamPlanOf } from './planner/stream.ts';
import type { QueryTrace } from './planner/trace.ts';
import { createMemorySource, type DocumentSource } from './source.ts';

export type * from './ast.ts';
export { GroqError, GroqParameterError, GroqSourceError, GroqSyntaxError, type GroqErrorCode } from './errors.ts';
export { parse, parseDetailed, type ParseOptions } from './parser.ts';
export { createMemorySource, PENDING, type DocumentSource, type Pending } from './source.ts';
export { planQuery } from './planner/plan-query.ts';
export { QueryTrace, type ScanTrace } from './planner/trace.ts';
export { describePlan, type PlanDescription } from './planner/explain.ts';
export type { Constraint, FieldPath, ReadPath, ScanAnswer, ScanRequest } from './planner/scan-plan.ts';
export { outermostPaths, placeAtPath } from './planner/read-paths.ts';
export { requestKey } from './planner/request-key.ts';
export type { QueryOutput } from './evaluator/run-query.ts';
export type { EvaluationBudget } from './evaluator/budget.ts';
export { readPath } from './planner/constraints.ts';
export { matchLiterals } from './evaluator/match.ts';

export type EvaluateOptions = {
  /** The documents of `*`, when no `source` is given. */
  dataset?: readonly unknown[];
  /** Where documents come from; takes precedence over `dataset`. */
  source?: DocumentSource;
  /** Values of `$name` parameters; every parameter the query uses must be given. */
  params?: Readonly<Record<string, unknown>>;
  /** The instant now() reports (default: the time evaluate() is called). */
  now?: Date;
  /** What identity() returns (default "me", as in groq-js). */
  identity?: string;
  /** What sanity::projectId() and sanity::dataset() return (default: null). */
  project?: { projectId: string; dataset: string };
  /**
   * Plan the query (default true): scans are asked of the source as requests it can answer from
   * indexes. Off, the evaluator reads `*` whole through documents(); results are the same.
   */
  planner?: boolean;
  /** Filled with what each scan did (for EXPLAIN output). */
  trace?: QueryTrace;
  /** How much work the evaluation may do (default: unlimited); see evaluator/budget.ts. */
  budget?: EvaluationBudget;
};

/**
 * Evaluates a query (text, a parsed AST, or prepared once with prepare()) and resolves to its
 * result as plain JSON values. Throws GroqSyntaxError for invalid text and GroqParameterError for a
 * missing parameter.
 */
export async function evaluate(query: string | ExprNode | PreparedQuery, options: EvaluateOptions = {}): Promise<unknown> {
  const output = await execute(query, options);
  if (output.kind === 'value') return output.value;
  const all: unknown[] = [];
  for await (const item of output.items) all.push(item);
  return all;
}

/**
 * Like evaluate(), but a result made from one scan document by document (`*[_type == "post"]{...}`)
 * comes as its elements one by one, computed a page of documents at a time: memory holds a page,
 * whatever the size of the dataset or of the result.
 */
export async function execute(query: string | ExprNode | PreparedQuery, options: EvaluateOptions = {}): Promise<QueryOutput> {
  const params = options.params ?? {};
  const prepared = isPrepared(query) ? query : prepare(query, options);
  const tree = prepared.tree;
  const { info } = compileQuery(tree);
  for (const name of info.parameters) {
    if (!Object.hasOwn(params, name) || params[name] === undefined) throw new GroqParameterError(name);
  }
  const source = options.source ?? createMemorySource(options.dataset ?? []);
  const settings = {
    source,
    params,
    now: new DateTime((options.now ?? new Date()).getTime()),
    identity: options.identity ?? 'me',
    project: options.project ?? null,
    trace: options.trace,
    budget: options.budget ?? UNLIMITED,
  };
  return runQuery(tree, settings, prepared.planned ? streamPlanOf(tree) : null);
}

/**
 * A query parsed and planned, ready to execute any number of times. Unless `readsParams`, it does
 * not depend on the parameters it was prepared with, and serves every execution of its text.
 */
export interface PreparedQuery {
  readonly tree: ExprNode;
  readonly planned: boolean;
  readonly readsParams: boolean;
}

/**
 * Parses (text) and plans (unless `planner` is false) a query for execute(). A tree given already
 * parsed counts as reading its parameters: how it was parsed is not known here.
 */
export function prepare(query: string | ExprNode, options: Pick<EvaluateOptions, 'params' | 'planner'> = {}): PreparedQuery {
  const { tree, readsParams } = typeof query === 'string' ? parseDetailed(query, { params: options.params ?? {} }) : { tree: query, readsParams: true };
  const planned = options.planner !== false;
  return { tree: planned ? planQuery(tree) : tree, planned, readsParams };
}

function isPrepared(query: string | ExprNode | PreparedQuery): query is PreparedQuery {
  return typeof query === 'object' && 'planned' in query && 'readsParams' in query;
}
