import { AppError } from '../errors.ts';

interface Waiter {
  bytes: number;
  start: () => void;
  timer: NodeJS.Timeout;
}

/**
 * Bytes of memory that requests share: a request takes what it will hold before it holds it and
 * gives it back when done. Takers wait first come, first served, each for at most `waitMs`, and
 * are refused (503 with Retry-After) past that: nothing waits for ever. A taker never asks for more
 * than `capacity` (callers refuse such requests first), so every waiter is served once those
 * ahead of it are done.
 */
export class ByteBudget {
  readonly capacity: number;
  private readonly waitMs: number;
  private readonly busyMessage: string;
  private readonly waiting: Waiter[] = [];
  private used = 0;

  constructor(capacity: number, waitMs: number, busyMessage: string) {
    this.capacity = capacity;
    this.waitMs = waitMs;
    this.busyMessage = busyMessage;
  }

  /** Takes `bytes` if they are free and nobody waits for them; says whether it did. */
  tryTake(bytes: number): boolean {
    if (this.waiting.length > 0 || this.used + bytes > this.capacity) return false;
    this.used += bytes;
    return true;
  }

  /** Takes `bytes` (at most `capacity`) once they are free, in turn; a 503 after waiting `waitMs`. */
  take(bytes: number): Promise<void> {
    if (bytes > this.capacity) return Promise.reject(new RangeError(`${bytes} bytes is more than the budget of ${this.capacity}`));
    if (this.tryTake(bytes)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        bytes,
        start: resolve,
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(this.busy());
          // The waiter ahead of others may have been the one that did not fit.
          this.serve();
        }, this.waitMs),
      };
      this.waiting.push(waiter);
    });
  }

  give(bytes: number): void {
    this.used -= bytes;
    this.serve();
  }

  /** A 503 that says when to try again. */
  busy(): AppError {
    return new AppError('SERVER_BUSY', this.busyMessage, { 'Retry-After': String(Math.max(1, Math.ceil(this.waitMs / 1000))) });
  }

  /** Starts waiters, oldest first, while the oldest fits. */
  private serve(): void {
    while (this.waiting.length > 0 && this.used + this.waiting[0]!.bytes <= this.capacity) {
      const next = this.waiting.shift()!;
      clearTimeout(next.timer);
      this.used += next.bytes;
      next.start();
    }
  }
}
