import type { CounterStore } from './counter-store.ts';

export interface RateLimitDecision {
  limit: number;
  remaining: number;
  /** Unix seconds at which the window resets. */
  resetAt: number;
  allowed: boolean;
  /** Seconds to wait before retrying, when not allowed. */
  retryAfter: number;
}

/** Fixed one-minute windows per key. */
export class RateLimiter {
  private readonly store: CounterStore;
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(store: CounterStore, windowMs = 60_000, now: () => number = Date.now) {
    this.store = store;
    this.windowMs = windowMs;
    this.now = now;
  }

  async hit(key: string, limit: number): Promise<RateLimitDecision> {
    const now = this.now();
    const windowStart = Math.floor(now / this.windowMs) * this.windowMs;
    const count = await this.store.hit(key, windowStart, this.windowMs);
    const resetMs = windowStart + this.windowMs;
    return {
      limit,
      remaining: Math.max(0, limit - count),
      resetAt: Math.ceil(resetMs / 1000),
      allowed: count <= limit,
      retryAfter: Math.max(1, Math.ceil((resetMs - now) / 1000)),
    };
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
