import type { ErrorCode } from '../../errors.ts';
import type { StoreOptions } from '../../store/index.ts';
import type { QueryJob } from './query-execution.ts';

/** What a query worker is started with. */
export interface QueryWorkerData {
  databaseUrl: string;
  storeOptions: StoreOptions;
}

/** One query for a worker: its text, what it runs on, and how long it has left. */
export interface QueryWorkerRequest {
  id: number;
  query: string;
  job: QueryJob;
  remainingMs: number;
  /** A result whose JSON is longer than this is refused with 422. */
  maxResultChars: number;
}

export type QueryWorkerReply =
  | { id: number; ok: true; json: string }
  | { id: number; ok: false; code: ErrorCode; message: string; stack?: string };
