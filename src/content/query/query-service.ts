import { badRequest, internalError, AppError } from '../../errors.ts';
import type { ProjectRecord, Store } from '../../store/index.ts';
import type { Principal } from '../../access/principal.ts';
import type { QueryLimits } from '../../config.ts';
import { requireProjectRole } from '../../access/access-control.ts';
import { GroqParameterError, GroqSyntaxError, QueryTrace, type PreparedQuery } from '../../groq/index.ts';
import { localizerFor } from '../localization.ts';
import { explainQuery, type QueryPlan } from './query-plan.ts';
import { PreparedQueries } from './prepared-queries.ts';
import { beyondEngineLimits, largestQueryText, MAIN_THREAD_TEXT_AT_ONCE, mainThreadHeapGuard, MoveToWorker, QueryBudget } from './query-budget.ts';
import { runQueryOn, type QueryJob } from './query-execution.ts';
import type { QueryWorkers } from './query-workers.ts';
import { RAW, type Perspective } from './perspectives.ts';

/** JSON text of a query's answer, whole documents as they were read (the route writes answers with it). */
export { answerJson } from '../../store/index.ts';

export interface QueryRequest {
  query: string;
  /** `$name` values; keys may be given with or without the `$`. */
  params?: Record<string, unknown>;
  language?: string;
  /** Which documents `*` sees (perspectives.ts); raw when not given. */
  perspective?: Perspective;
  /** Add the query plan (what the indexes answered, what was evaluated) to the response. */
  explain?: boolean;
}

/**
 * A query's answer, in one of three forms:
 * - value: the result, computed on the main thread;
 * - stream: a result array produced a page of documents at a time (`*[_type == "post"]{...}`), which
 *   the route writes as its elements come, so memory holds a page whatever the result's size;
 *   `finish` gives the time and plan once the elements have been read;
 * - json: the result as JSON in UTF-8 bytes, from a query worker (nothing to convert on the main
 *   thread, and outside its heap).
 */
export type QueryResponse =
  | { kind: 'value'; query: string; ms: number; result: unknown; plan?: QueryPlan }
  | { kind: 'stream'; query: string; items: AsyncIterable<unknown>; finish(): { ms: number; plan?: QueryPlan } }
  | { kind: 'json'; query: string; ms: number; json: Uint8Array };

/** A query worker's result (the `json` of an answer), parsed. */
export function parsedResult(json: Uint8Array): unknown {
  return JSON.parse(new TextDecoder().decode(json));
}

function queryError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof GroqSyntaxError) {
    return badRequest(`GROQ syntax error at line ${error.line}, column ${error.column} (position ${error.position}): ${error.detail}`);
  }
  if (error instanceof GroqParameterError) return badRequest(`The query uses $${error.parameter}, which is not in params`);
  if (beyondEngineLimits(error)) return new AppError('QUERY_TOO_LARGE', 'The query is too large to answer: it asked for a value too large to build; narrow it with a filter, a projection or a slice');
  return internalError('The query could not be executed', error);
}

/**
 * POST /data/query: GROQ over a dataset. A query runs on the main thread within a slice of time and
 * a number of documents (query-budget.ts); one that needs more moves to a query worker, where it
 * delays no other request, and is stopped when it passes its time (408) or memory (422) budget.
 */
export class QueryService {
  private readonly store: Store;
  private readonly limits: QueryLimits;
  private readonly workers: QueryWorkers;
  private readonly prepared = new PreparedQueries();
  private readonly heapGuardBytes = mainThreadHeapGuard();

  constructor(store: Store, limits: QueryLimits, workers: QueryWorkers) {
    this.store = store;
    this.limits = limits;
    this.workers = workers;
  }

  /**
   * `verbatim`: the caller only writes the result, with answerJson(); whole documents that are the
   * result as they are may then come unparsed (StoredJson). Not with a localized or explained query.
   */
  async query(actor: Principal, project: ProjectRecord, dataset: string, request: QueryRequest, { verbatim = false } = {}): Promise<QueryResponse> {
    requireProjectRole(actor, project, 'viewer', { dataset });
    const localizer = localizerFor(project.locales, request.language);
    const localize = localizer ?? ((value: unknown) => value);
    const params = Object.fromEntries(Object.entries(request.params ?? {}).map(([name, value]) => [name.replace(/^\$/, ''), value]));
    const started = performance.now();
    const ms = () => Math.round((performance.now() - started) * 1000) / 1000;
    const budget = new QueryBudget({
      timeoutMs: this.limits.timeoutMs,
      sliceMs: this.limits.sliceMs,
      maxTextChars: largestQueryText(this.limits.memoryLimitMb),
      textAtOnce: MAIN_THREAD_TEXT_AT_ONCE,
      heapGuardBytes: this.heapGuardBytes,
      started,
    });
    const job: QueryJob = { projectId: project.id, dataset, params, perspective: request.perspective ?? RAW };
    let prepared: PreparedQuery;
    try {
      prepared = this.prepared.get(request.query, params);
      return await this.onMainThread(prepared, request, job, { budget, localize, ms, verbatim: verbatim && !localizer && !request.explain });
    } catch (error) {
      if (!(error instanceof MoveToWorker)) throw queryError(error);
    }
    const json = await this.workers.run(request.query, job, budget.remainingMs(), this.limits.timeoutMs);
    if (!localizer) return { kind: 'json', query: request.query, ms: ms(), json };
    return { kind: 'value', query: request.query, ms: ms(), result: localize(parsedResult(json)) };
  }

  /** Stops the query workers. */
  async close(): Promise<void> {
    await this.workers.close();
  }

  private async onMainThread(
    prepared: PreparedQuery,
    request: QueryRequest,
    job: QueryJob,
    { budget, localize, ms, verbatim }: { budget: QueryBudget; localize: (value: unknown) => unknown; ms: () => number; verbatim: boolean },
  ): Promise<QueryResponse> {
    const trace = request.explain ? new QueryTrace() : undefined;
    const { source, output: running } = runQueryOn(this.store, prepared, job, { budget, maxDocuments: this.limits.mainThreadDocuments, trace, verbatim });
    const output = await running;
    const plan = () => (trace ? { plan: explainQuery(prepared.tree, request.query, trace, source) } : {});
    if (output.kind === 'value') return { kind: 'value', query: request.query, ms: ms(), result: localize(output.value), ...plan() };
    // The first page is computed before the answer begins: until then the query may still move to
    // a worker or time out with a status of its own.
    const iterator = output.items[Symbol.asyncIterator]();
    const first = await iterator.next();
    const sliceMs = this.limits.sliceMs;
    return {
      kind: 'stream',
      query: request.query,
      items: (async function* () {
        if (first.done) return;
        yield localize(first.value);
        try {
          for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield localize(next.value);
        } catch (error) {
          if (error instanceof MoveToWorker) {
            throw new AppError('QUERY_TIMEOUT', `The query outgrew the main thread after its answer began (${error.message}; QUERY_SLICE_MS is ${sliceMs}); narrow it`);
          }
          throw queryError(error);
        }
      })(),
      finish: () => ({ ms: ms(), ...plan() }),
    };
  }
}
