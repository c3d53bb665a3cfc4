import { badRequest, internalError, AppError } from '../../errors.ts';
import type { ProjectRecord, Store } from '../../store/index.ts';
import type { Principal } from '../../access/principal.ts';
import { requireProjectRole } from '../../access/access-control.ts';
import { execute, GroqParameterError, GroqSyntaxError, QueryTrace, type PreparedQuery, type QueryOutput } from '../../groq/index.ts';
import { localizerFor } from '../localization.ts';
import { StoreDocumentSource } from './store-document-source.ts';
import { withPerspective } from './perspective-source.ts';
import { explainQuery, type QueryPlan } from './query-plan.ts';
import { PreparedQueries } from './prepared-queries.ts';

/** Which documents `*` sees: all (raw), published only, or drafts in place of their published form. */
export const PERSPECTIVES = ['raw', 'published', 'drafts', 'previewDrafts'] as const;
export type Perspective = (typeof PERSPECTIVES)[number];

export interface QueryRequest {
  query: string;
  /** `$name` values; keys may be given with or without the `$`. */
  params?: Record<string, unknown>;
  language?: string;
  perspective?: Perspective;
  /** Add the query plan (what the indexes answered, what was evaluated) to the response. */
  explain?: boolean;
}

export interface QueryResponse {
  query: string;
  /** Server time spent on the query, in milliseconds. */
  ms: number;
  result: unknown;
  plan?: QueryPlan;
}

/**
 * A result array produced a page of documents at a time (`*[_type == "post"]{...}`): the route
 * writes its elements as they come, so memory holds a page whatever the result's size. `finish`
 * gives the time and plan once the elements have been read.
 */
export interface StreamedQueryResponse {
  query: string;
  items: AsyncIterable<unknown>;
  finish(): { ms: number; plan?: QueryPlan };
}

export function isStreamed(response: QueryResponse | StreamedQueryResponse): response is StreamedQueryResponse {
  return 'items' in response;
}

function queryError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof GroqSyntaxError) {
    return badRequest(`GROQ syntax error at line ${error.line}, column ${error.column} (position ${error.position}): ${error.detail}`);
  }
  if (error instanceof GroqParameterError) return badRequest(`The query uses $${error.parameter}, which is not in params`);
  return internalError('The query could not be executed', error);
}

/** POST /data/query: GROQ over a dataset (drafts and published documents alike). */
export class QueryService {
  private readonly store: Store;
  private readonly prepared = new PreparedQueries();

  constructor(store: Store) {
    this.store = store;
  }

  async query(actor: Principal, project: ProjectRecord, dataset: string, request: QueryRequest): Promise<QueryResponse | StreamedQueryResponse> {
    requireProjectRole(actor, project, 'viewer', { dataset });
    const localize = localizerFor(project.locales, request.language) ?? ((value: unknown) => value);
    const params = Object.fromEntries(Object.entries(request.params ?? {}).map(([name, value]) => [name.replace(/^\$/, ''), value]));
    const started = performance.now();
    const ms = () => Math.round((performance.now() - started) * 1000) / 1000;
    const source = new StoreDocumentSource(this.store, project.id, dataset);
    const trace = request.explain ? new QueryTrace() : undefined;
    let prepared: PreparedQuery;
    let output: QueryOutput;
    try {
      prepared = this.prepared.get(request.query, params);
      output = await execute(prepared, { source: withPerspective(source, request.perspective), params, project: { projectId: project.id, dataset }, trace });
    } catch (error) {
      throw queryError(error);
    }
    const plan = () => trace && explainQuery(prepared.tree, request.query, trace, source, this.store, { projectId: project.id, dataset });
    if (output.kind === 'value') {
      const result = localize(output.value);
      return { query: request.query, ms: ms(), result, ...(trace ? { plan: plan() } : {}) };
    }
    const items = output.items;
    return {
      query: request.query,
      items: (async function* () {
        try {
          for await (const item of items) yield localize(item);
        } catch (error) {
          throw queryError(error);
        }
      })(),
      finish: () => ({ ms: ms(), ...(trace ? { plan: plan() } : {}) }),
    };
  }
}
