// The GROQ engine: parse a query into a typed AST, evaluate it against a DocumentSource.
//
//   import { evaluate } from 'content-service/groq';
//   await evaluate('*[_type == $type]{title}', { dataset: docs, params: { type: 'post' } });
import type { ExprNode } from './ast.ts';
import { GroqParameterError, GroqSourceError } from './errors.ts';
import { compileQuery } from './evaluator/compile.ts';
import { toJson } from './evaluator/json.ts';
import { Scope, type Run } from './evaluator/scope.ts';
import { DateTime } from './evaluator/values.ts';
import { parse } from './parser.ts';
import { createMemorySource, type DocumentSource } from './source.ts';

export type * from './ast.ts';
export { GroqError, GroqParameterError, GroqSourceError, GroqSyntaxError, type GroqErrorCode } from './errors.ts';
export { parse, type ParseOptions } from './parser.ts';
export { createMemorySource, PENDING, type DocumentSource, type Pending } from './source.ts';

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
};

/** An asynchronous source that keeps answering PENDING after this many loads is broken. */
const MAX_LOAD_ROUNDS = 100;

/**
 * Evaluates a query (text or a parsed AST) and resolves to its result as plain JSON values.
 * Throws GroqSyntaxError for invalid text and GroqParameterError for a missing parameter.
 */
export async function evaluate(query: string | ExprNode, options: EvaluateOptions = {}): Promise<unknown> {
  const params = options.params ?? {};
  const tree = typeof query === 'string' ? parse(query, { params }) : query;
  const { root, info } = compileQuery(tree);
  for (const name of info.parameters) {
    if (!Object.hasOwn(params, name) || params[name] === undefined) throw new GroqParameterError(name);
  }
  const source = options.source ?? createMemorySource(options.dataset ?? []);
  const now = new DateTime((options.now ?? new Date()).getTime());
  for (let round = 0; round <= MAX_LOAD_ROUNDS; round++) {
    const run: Run = {
      source,
      params,
      now,
      identity: options.identity ?? 'me',
      project: options.project ?? null,
      cache: new Array<unknown>(info.slots),
      pending: false,
    };
    const value = root(new Scope(null, null, false, run));
    if (!run.pending) return info.nonJson ? toJson(value) : value;
    if (!source.load) throw new GroqSourceError('the document source answered PENDING but has no load()');
    await source.load();
  }
  throw new GroqSourceError(`the document source still answered PENDING after ${MAX_LOAD_ROUNDS} loads`);
}
