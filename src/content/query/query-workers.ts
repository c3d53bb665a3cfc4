import { Worker } from 'node:worker_threads';
import { AppError, internalError } from '../../errors.ts';
import type { StoreOptions } from '../../store/index.ts';
import type { QueryJob } from './query-execution.ts';
import { queryTimeout } from './query-budget.ts';
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

interface Task {
  query: string;
  job: QueryJob;
  timeoutMs: number;
  deadline: number;
  resolve(json: string): void;
  reject(error: AppError): void;
}

interface Slot {
  worker: Worker | undefined;
  task: Task | undefined;
  stopTimer: NodeJS.Timeout | undefined;
  idleTimer: NodeJS.Timeout | undefined;
}

const WORKER_FILE = new URL(import.meta.url.endsWith('.ts') ? './query-worker.ts' : './query-worker.js', import.meta.url);

/**
 * The threads that run queries which moved off the main thread (query-budget.ts): a heavy query
 * computes there, where it delays no other request, within a heap limit (422 beyond it) and its
 * time budget (408; a thread that does not stop in time is terminated). Threads start on demand
 * and stop when idle.
 */
export class QueryWorkers {
  private readonly settings: QueryWorkerSettings;
  private readonly slots: Slot[];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(settings: QueryWorkerSettings) {
    this.settings = settings;
    this.slots = Array.from({ length: settings.size }, () => ({ worker: undefined, task: undefined, stopTimer: undefined, idleTimer: undefined }));
  }

  /** Runs the query in a thread; resolves to its result as JSON text. */
  run(query: string, job: QueryJob, remainingMs: number, timeoutMs: number): Promise<string> {
    if (this.closed) return Promise.reject(new AppError('BAD_REQUEST', 'The server is shutting down'));
    return new Promise<string>((resolve, reject) => {
      const task: Task = { query, job, timeoutMs, deadline: performance.now() + remainingMs, resolve, reject };
      const free = this.slots.find((slot) => slot.task === undefined);
      if (free) return this.start(free, task);
      if (this.queue.length >= this.settings.size * QUEUE_PER_WORKER) {
        return reject(new AppError('RATE_LIMITED', 'Too many expensive queries are running; try again shortly', { 'Retry-After': '1' }));
      }
      this.queue.push(task);
      // A task that waits past its deadline is answered without running.
      setTimeout(() => {
        const index = this.queue.indexOf(task);
        if (index !== -1) {
          this.queue.splice(index, 1);
          reject(queryTimeout(timeoutMs));
        }
      }, remainingMs).unref();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new AppError('BAD_REQUEST', 'The server is shutting down'));
    await Promise.all(this.slots.map((slot) => this.stop(slot)));
  }

  private start(slot: Slot, task: Task): void {
    clearTimeout(slot.idleTimer);
    slot.task = task;
    const worker = (slot.worker ??= this.spawn(slot));
    const remainingMs = task.deadline - performance.now();
    const request: QueryWorkerRequest = {
      id: this.nextId++,
      query: task.query,
      job: task.job,
      remainingMs,
      maxResultChars: Math.floor((this.settings.memoryLimitMb * 1024 * 1024) / 4),
    };
    slot.stopTimer = setTimeout(() => this.fail(slot, queryTimeout(task.timeoutMs)), remainingMs + GRACE_MS);
    slot.stopTimer.unref();
    worker.postMessage(request);
  }

  private spawn(slot: Slot): Worker {
    const data: QueryWorkerData = { databaseUrl: this.settings.databaseUrl, storeOptions: this.settings.storeOptions };
    const worker = new Worker(WORKER_FILE, { workerData: data, resourceLimits: { maxOldGenerationSizeMb: this.settings.memoryLimitMb } });
    worker.unref();
    // A thread that was stopped may still report: only the slot's current thread is listened to.
    worker.on('message', (reply: QueryWorkerReply) => {
      if (slot.worker === worker) this.settle(slot, reply);
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (slot.worker !== worker) return;
      const failure =
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new AppError('QUERY_TOO_LARGE', `The query needed more memory than a query may use (QUERY_MEMORY_LIMIT_MB=${this.settings.memoryLimitMb}); narrow it with a filter, a projection or a slice`)
          : internalError('The query could not be executed', error);
      this.fail(slot, failure);
    });
    worker.on('exit', (code) => {
      if (slot.worker !== worker) return;
      slot.worker = undefined;
      if (slot.task) this.fail(slot, internalError('The query could not be executed', new Error(`the query worker exited with ${code}`)));
    });
    return worker;
  }

  private settle(slot: Slot, reply: QueryWorkerReply): void {
    const task = this.finish(slot);
    if (!task) return;
    if (reply.ok) task.resolve(reply.json);
    else if (reply.code === 'INTERNAL') task.reject(internalError('The query could not be executed', Object.assign(new Error(reply.message), { stack: reply.stack })));
    else task.reject(new AppError(reply.code, reply.message));
    this.next(slot);
  }

  /** Ends the slot's task with `error`; its thread, which failed or ran out of time, is not used again. */
  private fail(slot: Slot, error: AppError): void {
    const task = this.finish(slot);
    void this.stop(slot);
    task?.reject(error);
    this.next(slot);
  }

  private finish(slot: Slot): Task | undefined {
    const task = slot.task;
    slot.task = undefined;
    clearTimeout(slot.stopTimer);
    return task;
  }

  private next(slot: Slot): void {
    const task = this.queue.shift();
    if (task) return this.start(slot, task);
    if (!slot.worker) return;
    slot.idleTimer = setTimeout(() => void this.stop(slot), this.settings.idleMs ?? DEFAULT_IDLE_MS);
    slot.idleTimer.unref();
  }

  private async stop(slot: Slot): Promise<void> {
    clearTimeout(slot.idleTimer);
    const worker = slot.worker;
    slot.worker = undefined;
    await worker?.terminate();
  }
}
