import { getHeapStatistics } from 'node:v8';
import { heapShare } from '../../heap-share.ts';
import { AppError } from '../../errors.ts';
import { textUnits, type EvaluationBudget } from '../../groq/index.ts';

/**
 * The longest text a query may build or answer with, in characters: a quarter of the memory a query
 * may use (QUERY_MEMORY_LIMIT_MB), as a character can take two bytes and text is copied on its way out.
 */
export function largestQueryText(memoryLimitMb: number): number {
  return Math.floor((memoryLimitMb * 1024 * 1024) / 4);
}

/** Whether `error` is V8 refusing a string or array beyond its own limits: what a query asked for cannot be built. */
export function beyondEngineLimits(error: unknown): boolean {
  return error instanceof RangeError && /length|size|allocation/i.test(error.message);
}

/** Units of work between two looks at the clock. */
const CHECK_EVERY = 512;

/**
 * Thrown on the main thread when a query has computed for its slice without finishing, or holds
 * more documents than a main-thread query may: the query service then runs it again in a query
 * worker, where it cannot delay other requests. Never reaches a client.
 */
export class MoveToWorker extends Error {
  constructor(reason: string) {
    super(`the query moves to a worker: ${reason}`);
    this.name = 'MoveToWorker';
  }
}

export function queryTimeout(timeoutMs: number): AppError {
  return new AppError('QUERY_TIMEOUT', `The query did not finish within ${timeoutMs} ms (QUERY_TIMEOUT_MS); narrow it with a filter or a slice`);
}

/**
 * Why a budget stopped a run, if `error` is one stopping it: past its slice (MoveToWorker) or its
 * deadline (408) is 'time'; a string longer than it may build (422) is 'text'.
 */
export function budgetStop(error: unknown): 'time' | 'text' | undefined {
  if (error instanceof MoveToWorker) return 'time';
  if (!(error instanceof AppError)) return undefined;
  if (error.code === 'QUERY_TIMEOUT') return 'time';
  return error.code === 'QUERY_TOO_LARGE' ? 'text' : undefined;
}

/**
 * On the main thread, a query moves to a worker before a function works through more text than
 * this in one step (a split of a million characters alone takes tens of milliseconds): the step
 * cannot be stopped once begun, and the slice is looked at only between steps.
 */
export const MAIN_THREAD_TEXT_AT_ONCE = 1 << 20;

/** On the main thread, a query moves to a worker once the heap holds more than this share of its limit. */
const MAIN_THREAD_HEAP_SHARE = 0.5;

/** Bytes of heap in use above which a main-thread query moves to a worker (the server's heap is bounded: HEAP_LIMIT_MB). */
export function mainThreadHeapGuard(): number {
  return heapShare(MAIN_THREAD_HEAP_SHARE);
}

/** A main-thread query holds documents of at most this share of the heap's limit, as text: parsed, they take a few times more. */
const MAIN_THREAD_TEXT_SHARE = 1 / 16;

/**
 * Characters of documents (read as text) a main-thread query may hold before it moves to a
 * worker: QUERY_MAIN_THREAD_DOCUMENTS alone let 10,000 documents of 200 KB past, two gigabytes.
 */
export function mainThreadText(): number {
  return heapShare(MAIN_THREAD_TEXT_SHARE);
}

/**
 * The budget of one query (evaluator/budget.ts in the GROQ engine): it must finish by `deadline`
 * (performance.now() milliseconds), and each synchronous run of it may compute for `sliceMs` at
 * most, and the heap may hold `heapGuardBytes` at most (looked at every CHECK_EVERY units of
 * work), before it moves to a worker. In a worker neither applies: only the deadline counts, and
 * the worker's own heap limit. Nor does `textAtOnce`, the most text a function may work through in
 * one step here. Anywhere, no string it builds may be longer than `maxTextChars` (422).
 */
export class QueryBudget implements EvaluationBudget {
  private readonly deadline: number;
  private readonly sliceMs: number;
  private readonly timeoutMs: number;
  private readonly heapGuardBytes: number;
  private readonly maxTextChars: number;
  private readonly textAtOnce: number;
  private sliceEnd = Infinity;
  private units = 0;
  private nextCheck = CHECK_EVERY;

  constructor(options: { timeoutMs: number; sliceMs: number; maxTextChars: number; textAtOnce?: number; heapGuardBytes?: number; started?: number }) {
    this.timeoutMs = options.timeoutMs;
    this.sliceMs = options.sliceMs;
    this.maxTextChars = options.maxTextChars;
    this.textAtOnce = options.textAtOnce ?? Infinity;
    this.heapGuardBytes = options.heapGuardBytes ?? Infinity;
    this.deadline = (options.started ?? performance.now()) + options.timeoutMs;
  }

  beginRun(): void {
    // The heap is looked at where the query works (charge()), not here: a lookup that charges
    // little adds little, and the heap's figure counts garbage not yet collected, which under a
    // busy server (an import) could send even the smallest query to the worker's queue.
    this.checkDeadline();
    this.sliceEnd = Math.min(this.deadline, performance.now() + this.sliceMs);
  }

  charge(units: number): void {
    this.units += units;
    if (this.units < this.nextCheck) return;
    this.nextCheck = this.units + CHECK_EVERY;
    this.checkHeap();
    if (performance.now() <= this.sliceEnd) return;
    this.checkDeadline();
    throw new MoveToWorker(`it computed for more than ${this.sliceMs} ms at once`);
  }

  buildsText(length: number): void {
    if (length > this.maxTextChars) {
      throw new AppError('QUERY_TOO_LARGE', `The query builds a string of ${length} characters, longer than the ${this.maxTextChars} a query may build (a quarter of QUERY_MEMORY_LIMIT_MB); narrow it`);
    }
    this.worksOnText(length);
  }

  worksOnText(characters: number): void {
    if (characters > this.textAtOnce) throw new MoveToWorker(`it would work through ${characters} characters of text in one step`);
    this.charge(textUnits(characters));
  }

  private checkHeap(): void {
    if (this.heapGuardBytes !== Infinity && getHeapStatistics().used_heap_size > this.heapGuardBytes) {
      throw new MoveToWorker(`the server's heap is more than ${Math.round(this.heapGuardBytes / 1024 / 1024)} MB full`);
    }
  }

  /** Throws 408 once the deadline has passed: between pages and rounds too. */
  checkDeadline(): void {
    if (performance.now() > this.deadline) throw queryTimeout(this.timeoutMs);
  }

  /** Milliseconds left before the deadline. */
  remainingMs(): number {
    return Math.max(0, this.deadline - performance.now());
  }
}
