import { Redis } from 'ioredis';
import type { CounterStore } from './counter-store.ts';

/**
 * Counters in Redis, shared by every instance: INCR on a key per (principal, window), expiring
 * shortly after the window ends. Because windows are aligned to the clock, instances agree.
 */
export class RedisCounterStore implements CounterStore {
  private readonly redis: Redis;
  private readonly prefix: string;

  constructor(url: string, prefix: string) {
    // While Redis is away commands fail at once (no offline queue) or after 500 ms, so requests are
    // never held waiting for it: the caller falls back to per-instance counters.
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 500 });
    // Connection errors surface on the commands that fail; the client reconnects by itself.
    this.redis.on('error', () => undefined);
    this.prefix = prefix;
  }

  async hit(key: string, windowStart: number, windowMs: number): Promise<number> {
    if (this.redis.status === 'connecting' || this.redis.status === 'wait' || this.redis.status === 'connect') await this.connected();
    const redisKey = `${this.prefix}${windowStart}:${key}`;
    const results = await this.redis.multi().incr(redisKey).pexpire(redisKey, windowMs + 5_000).exec();
    const [error, count] = results?.[0] ?? [new Error('rate limit counter: empty reply'), 0];
    if (error) throw error;
    return Number(count);
  }

  /** Waits (briefly) for the first connection, so requests right after start are counted in Redis too. */
  private connected(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, 1000);
      this.redis.once('ready', done);
    });
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
