// The GROQ engine: parse a query into a typed AST, evaluate it against a DocumentSource.
//
//   import { evaluate } from 'content-service/groq';
//   await evaluate('*[_type == $type]{title}', { dataset: docs, params: { type: 'post' } });
import type { ExprNode } from './ast.ts';
import { GroqParameterError } from './errors.ts';
import { runQuery, type QueryOutput } from './evaluator/run-query.ts';
import { DateTime } from './evaluator/values.ts';
import { UNLIMITED, type EvaluationBudget } from './evaluator/budget.ts';
import type { QueryTrace } from './planner/trace.ts';
import { isPrepared, prepare, type PreparedQuery } from './prepared-query.ts';
import { createMemorySource, type DocumentSource } from './source.ts';

export type * from './ast.ts';
export { GroqError, GroqParameterError, GroqSourceError, GroqSyntaxError, type GroqErrorCode } from './errors.ts';
export { parse, parseDetailed, type ParseOptions } from './parser.ts';
export { createMemorySource, PENDING, type DocumentSource, type Pending } from './source.ts';
export { planQuery } from './planner/plan-query.ts';
export { prepare, type PreparedQuery } from './prepared-query.ts';
export { QueryTrace, type ScanTrace } from './planner/trace.ts';
export { describePlan, type PlanDescription } from './planner/explain.ts';
export type { Constraint, FieldPath, NumberSummary, ReadPath, ScanAnswer, ScanRequest } from './planner/scan-plan.ts';
export { outermostPaths, placeAtPath } from './planner/read-paths.ts';
export { requestKey } from './planner/request-key.ts';
export type { QueryOutput } from './evaluator/run-query.ts';
export { textUnits, type EvaluationBudget } from './evaluator/budget.ts';
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
 * Evaluates a query (text, a parsed AST, or prepared once with prepare(); text and trees are
 * prepared anew for each call) and resolves to its result as plain JSON values. Throws
 * GroqSyntaxError for invalid text and GroqParameterError for a missing parameter.
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
  const { compiled } = isPrepared(query) ? query : prepare(query, options);
  for (const name of compiled.parameters) {
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
  return runQuery(compiled, settings);
}
