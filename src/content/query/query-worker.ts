// A query worker thread of the piscina pool (query-workers.ts): runs the queries that moved off the
// server's main thread (query-budget.ts), one at a time, on a read-only connection of its own,
// under the heap limit its pool gave it.
import { workerData } from 'node:worker_threads';
import { move } from 'piscina';
import { AppError } from '../../errors.ts';
import { openStore } from '../../store/index.ts';
import { PreparedQueries } from './prepared-queries.ts';
import { beyondEngineLimits, QueryBudget } from './query-budget.ts';
import { runQueryOn, wholeValue } from './query-execution.ts';
import type { QueryWorkerData, QueryWorkerReply, QueryWorkerRequest } from './query-worker-protocol.ts';

const settings = workerData as QueryWorkerData;
const store = openStore(settings.databaseUrl, { ...settings.storeOptions, readOnly: true });
const prepared = new PreparedQueries(100);

export default async function answer(request: QueryWorkerRequest): Promise<QueryWorkerReply> {
  try {
    const budget = new QueryBudget({ timeoutMs: request.deadline - Date.now(), sliceMs: Infinity, maxTextChars: request.maxResultChars });
    const query = prepared.get(request.query, request.job.params);
    const json = JSON.stringify((await wholeValue(await runQueryOn(store, query, request.job, { budget }).output)) ?? null);
    if (json.length > request.maxResultChars) return tooLarge(`its result is larger than ${request.maxResultChars} characters of JSON`);
    // Bytes of their own (TextEncoder, not Buffer's shared pool), so that moving them moves nothing else.
    return move(new TextEncoder().encode(json)) as Uint8Array;
  } catch (error) {
    if (error instanceof AppError) return { code: error.code, message: error.message };
    if (beyondEngineLimits(error)) return tooLarge('its result is too large to build');
    const failure = error instanceof Error ? error : new Error(String(error));
    return { code: 'INTERNAL', message: failure.message, ...(failure.stack ? { stack: failure.stack } : {}) };
  }
}

function tooLarge(reason: string): QueryWorkerReply {
  return { code: 'QUERY_TOO_LARGE', message: `The query is too large to answer: ${reason}; narrow it with a filter, a projection or a slice` };
}
