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
    this.redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
    // Connection errors surface on the commands that fail; the client reconnects by itself.
    this.redis.on('error', () => undefined);
    this.prefix = prefix;
  }

  async hit(key: string, windowStart: number, windowMs: number): Promise<number> {
    const redisKey = `${this.prefix}${windowStart}:${key}`;
    const results = await this.redis.multi().incr(redisKey).pexpire(redisKey, windowMs + 5_000).exec();
    const [error, count] = results?.[0] ?? [new Error('rate limit counter: empty reply'), 0];
    if (error) throw error;
    return Number(count);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
