import { AppError } from '../errors.ts';

interface Waiter {
  start: () => void;
  timer: NodeJS.Timeout;
}

/**
 * Places for image renders: at most `concurrency` run at once, up to `queueLength` more wait first
 * come, first served, each for at most `waitMs`. A render that finds the queue full, or waits too
 * long, is refused with 429 and Retry-After, so a burst of new variants costs bounded memory and
 * never hangs a request.
 */
export class RenderSlots {
  private readonly concurrency: number;
  private readonly queueLength: number;
  private readonly waitMs: number;
  private readonly waiting: Waiter[] = [];
  private running = 0;

  constructor(concurrency: number, queueLength: number, waitMs: number) {
    this.concurrency = concurrency;
    this.queueLength = queueLength;
    this.waitMs = waitMs;
  }

  /** Runs `task` in a place of its own, once one is free. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running += 1;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.queueLength) return Promise.reject(this.busy());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        start: resolve,
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(this.busy());
        }, this.waitMs),
      };
      this.waiting.push(waiter);
    });
  }

  /** Hands the place to the longest waiting render, if any. */
  private release(): void {
    const next = this.waiting.shift();
    if (!next) {
      this.running -= 1;
      return;
    }
    clearTimeout(next.timer);
    next.start();
  }

  /** Every waiter leaves the queue within `waitMs`, so that is when a retry can find room. */
  private busy(): AppError {
    return new AppError('RATE_LIMITED', 'Too many images are being transformed at once; try again shortly', {
      'Retry-After': String(Math.ceil(this.waitMs / 1000)),
    });
  }
}
