import type { ErrorCode } from '../../errors.ts';
import type { StoreOptions } from '../../store/index.ts';
import type { QueryJob } from './query-execution.ts';

/** What a query worker is started with. */
export interface QueryWorkerData {
  databaseUrl: string;
  storeOptions: StoreOptions;
}

/** One query for a worker: its text, what it runs on, and when it must end (Date.now() milliseconds: it may wait in the queue). */
export interface QueryWorkerRequest {
  query: string;
  job: QueryJob;
  deadline: number;
  /** A result whose JSON is longer than this, or a string built longer, is refused with 422. */
  maxResultChars: number;
}

/**
 * A result: its JSON as UTF-8 bytes, moved to the server's thread rather than copied (piscina's
 * move()), so a large result takes memory outside the server's heap, once; or a failure.
 */
export type QueryWorkerReply = Uint8Array | QueryWorkerFailure;

export interface QueryWorkerFailure {
  code: ErrorCode;
  message: string;
  stack?: string;
}
