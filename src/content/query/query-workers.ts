import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { AppError, internalError } from '../../errors.ts';
import type { StoreOptions } from '../../store/index.ts';
import type { QueryJob } from './query-execution.ts';
import { largestQueryText, queryTimeout } from './query-budget.ts';
import type { QueryWorkerData, QueryWorkerReply, QueryWorkerRequest } from './query-worker-protocol.ts';

export interface QueryWorkerSettings {
  databaseUrl: string;
  storeOptions: StoreOptions;
  /** Threads; each runs one query at a time. */
  size: number;
  /** Each thread's heap limit. */
  memoryLimitMb: number;
  /** A thread idle this long is stopped (a new one starts with the next query). */
  idleMs?: number;
}

/** Queries that may wait for a thread, per thread; more are answered 429. */
const QUEUE_PER_WORKER = 8;
/** After its deadline a worker's own budget stops a query; past this grace the thread is stopped. */
const GRACE_MS = 1000;
const DEFAULT_IDLE_MS = 60_000;
const YOUNG_GENERATION_MB = 48;

const WORKER_FILE = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './query-worker.ts' : './query-worker.js', import.meta.url));

/**
 * The threads that run queries which moved off the main thread (query-budget.ts), a piscina pool:
 * a heavy query computes there, where it delays no other request, within a heap limit (422
 * beyond it) and its time budget (408; a thread that does not stop in time is terminated).
 * Threads start on demand and stop when idle.
 */
export class QueryWorkers {
  private readonly memoryLimitMb: number;
  /** Queries running or waiting at most (piscina's maxQueue does not count tasks with an abort signal). */
  private readonly capacity: number;
  private inFlight = 0;
  private readonly pool: Piscina<QueryWorkerRequest, QueryWorkerReply>;
  private closed = false;

  constructor(settings: QueryWorkerSettings) {
    this.memoryLimitMb = settings.memoryLimitMb;
    this.capacity = settings.size * (1 + QUEUE_PER_WORKER);
    const workerData: QueryWorkerData = { databaseUrl: settings.databaseUrl, storeOptions: settings.storeOptions };
    this.pool = new Piscina({
      filename: WORKER_FILE,
      workerData,
      minThreads: 0,
      maxThreads: settings.size,
      concurrentTasksPerWorker: 1,
      idleTimeout: settings.idleMs ?? DEFAULT_IDLE_MS,
      // The young generation as the server's (cli/server-runtime.ts): V8's default grows to 128 MB.
      resourceLimits: { maxOldGenerationSizeMb: settings.memoryLimitMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
      // A worker holds database connections whose timers must run between queries.
      atomics: 'disabled',
    });
  }

  /** Runs the query in a thread; resolves to its result as JSON, in UTF-8 bytes outside the heap. */
  async run(query: string, job: QueryJob, remainingMs: number, timeoutMs: number): Promise<Uint8Array> {
    if (this.closed) throw shuttingDown();
    if (this.inFlight >= this.capacity) throw new AppError('RATE_LIMITED', 'Too many expensive queries are running; try again shortly', { 'Retry-After': '1' });
    const maxResultChars = largestQueryText(this.memoryLimitMb);
    let reply: QueryWorkerReply;
    this.inFlight++;
    try {
      // A query still queued or running this long after its deadline is dropped, and its thread stopped.
      reply = await this.pool.run({ query, job, deadline: Date.now() + remainingMs, maxResultChars }, { signal: AbortSignal.timeout(Math.ceil(remainingMs) + GRACE_MS) });
    } catch (error) {
      throw this.failure(error, timeoutMs);
    } finally {
      this.inFlight--;
    }
    if (reply instanceof Uint8Array) return reply;
    if (reply.code === 'INTERNAL') throw internalError('The query could not be executed', Object.assign(new Error(reply.message), { stack: reply.stack }));
    throw new AppError(reply.code, reply.message);
  }

  private failure(error: unknown, timeoutMs: number): AppError {
    if (this.closed) return shuttingDown();
    if (error instanceof Error && error.name === 'AbortError') return queryTimeout(timeoutMs);
    if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return new AppError('QUERY_TOO_LARGE', `The query needed more memory than a query may use (QUERY_MEMORY_LIMIT_MB=${this.memoryLimitMb}); narrow it with a filter, a projection or a slice`);
    }
    return internalError('The query could not be executed', error instanceof Error ? error : new Error(String(error)));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.pool.destroy();
  }
}

function shuttingDown(): AppError {
  return new AppError('BAD_REQUEST', 'The server is shutting down');
}
