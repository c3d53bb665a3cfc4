import { badRequest } from '../errors.ts';
import { createMemorySource, evaluate, GroqParameterError, GroqSyntaxError, parse, prepare, type ExprNode, type PreparedQuery } from '../groq/index.ts';
import { budgetStop, QueryBudget } from '../content/query/query-budget.ts';
import type { StoredDocument } from '../store/index.ts';

/** The longest listener query accepted (the same bound as POST /data/query). */
export const MAX_LISTEN_QUERY_LENGTH = 256 * 1024;

/** Which documents a listener wants: a GROQ filter judged on one document at a time. */
export interface ListenFilter {
  /** Listeners whose filters have equal keys share one: each change is judged once per key. */
  readonly key: string;
  /** Throws FilterTooCostly when judging the document takes longer than the filter may. */
  matches(document: StoredDocument): Promise<boolean>;
}

/** What judging one document may cost. */
export interface FilterLimits {
  /** How long the filter may compute on one document (QUERY_SLICE_MS: what a query may compute at once on the main thread). */
  readonly sliceMs: number;
  /** The longest string it may build (largestQueryText). */
  readonly maxTextChars: number;
}

/**
 * A filter cost more than it may on one document: it computed for too long, or built too long a
 * string. Changes are judged on the server's main thread, for every listener, so such a filter
 * would delay every request at every change: its listeners are closed with this message instead.
 */
export class FilterTooCostly extends Error {
  constructor(what: string) {
    super(`The listener's filter ${what} on one document, so the listener was closed: narrow the filter`);
    this.name = 'FilterTooCostly';
  }
}

export interface FilterScope {
  projectId: string;
  dataset: string;
}

const SHAPE = 'A listener query must be a filter of documents, such as *[_type == "post"]';

/**
 * Compiles a listener query. Like Sanity's, it is a filter (`*[...]`, several filters in a row
 * are and-ed); a trailing projection or `| order(...)` is accepted and ignored, since events carry
 * whole documents in commit order. A change is judged on the document alone, so what would need
 * other documents is refused rather than silently judged wrong: subqueries (`*` inside the
 * filter) and `->`. Everything else is a 400 with a message saying why.
 */
export async function compileListenFilter(query: string, rawParams: Record<string, unknown>, scope: FilterScope, limits: FilterLimits): Promise<ListenFilter> {
  if (query.length > MAX_LISTEN_QUERY_LENGTH) throw badRequest(`The query is longer than ${MAX_LISTEN_QUERY_LENGTH} characters`);
  // Parameters may be named with or without their `$`, as in POST /data/query.
  const params = Object.fromEntries(Object.entries(rawParams).map(([name, value]) => [name.replace(/^\$/, ''), value]));
  let filter: PreparedQuery;
  try {
    // Prepared once: every change is judged with it.
    filter = prepare(filterOf(parse(query, { params })));
    // Evaluating once on no documents checks its parameters.
    await evaluate(filter, { dataset: [], params, project: scope });
  } catch (error) {
    if (error instanceof GroqSyntaxError) {
      throw badRequest(`GROQ syntax error at line ${error.line}, column ${error.column} (position ${error.position}): ${error.detail}`);
    }
    if (error instanceof GroqParameterError) throw badRequest(`The query uses $${error.parameter}, which is not in params`);
    throw error;
  }
  return {
    key: `${query}\u0000${JSON.stringify(params)}`,
    async matches(document) {
      // Time alone: a heap filled by other work (an import) must not close listeners that cost little.
      const budget = new QueryBudget({ timeoutMs: limits.sliceMs, sliceMs: limits.sliceMs, maxTextChars: limits.maxTextChars });
      try {
        const result = await evaluate(filter, { source: createMemorySource([document]), params, project: scope, budget });
        return Array.isArray(result) && result.length > 0;
      } catch (error) {
        // Its slice and its deadline are both the filter's slice here.
        const stop = budgetStop(error);
        if (stop === 'time') throw new FilterTooCostly(`computed for more than ${limits.sliceMs} ms (QUERY_SLICE_MS)`);
        if (stop === 'text') throw new FilterTooCostly(`built a string longer than ${limits.maxTextChars} characters`);
        return false; // GROQ has no run-time errors on data; a failing function just does not match
      }
    },
  };
}

/** The filter part of a listener query: `*` under one or more filters, without projection or ordering. */
function filterOf(tree: ExprNode): ExprNode {
  let node: ExprNode = tree;
  for (;;) {
    if (node.type === 'Order') node = node.base;
    else if (node.type === 'Map' && node.expr.type === 'Projection' && node.expr.base.type === 'This') node = node.base;
    else break;
  }
  let base: ExprNode = node;
  while (base.type === 'Filter') {
    const refused = needsOtherDocuments(base.expr);
    if (refused) throw badRequest(`Listener filters are judged on one document at a time: ${refused} are not supported`);
    base = base.base;
  }
  if (base.type !== 'Everything') throw badRequest(`${SHAPE}; slices, aggregates and other expressions are not supported`);
  return node;
}

/** What in a filter expression would read other documents, if anything. */
function needsOtherDocuments(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = needsOtherDocuments(item);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const type = (value as { type?: unknown }).type;
  if (type === 'Everything') return 'subqueries (*)';
  if (type === 'Deref') return 'references followed with ->';
  for (const child of Object.values(value)) {
    const found = needsOtherDocuments(child);
    if (found) return found;
  }
  return undefined;
}
