import { LRUCache } from 'lru-cache';

/**
 * How long a read that every request makes (the signed-in user, the named project) is kept. A
 * change made on another instance applies here within this; one made here applies at once.
 */
export const RECENT_READ_MS = 1000;

/**
 * Records read for every request, kept for at most RECENT_READ_MS (bounded in entries). Writers on
 * this instance call `forget()`; a read that was under way when they did is not kept, so it cannot
 * bring back what the write changed. Values are shared between requests: never modify one.
 */
export class RecentReads<V extends object> {
  private readonly cache: LRUCache<string, V>;
  private generation = 0;

  constructor(maxEntries = 10_000) {
    this.cache = new LRUCache<string, V>({ max: maxEntries, ttl: RECENT_READ_MS });
  }

  /** The value kept for `key`, else what `read` finds (kept when found). */
  async get(key: string, read: () => Promise<V | undefined>): Promise<V | undefined> {
    const kept = this.cache.get(key);
    if (kept !== undefined) return kept;
    const generation = this.generation;
    const value = await read();
    if (value !== undefined && generation === this.generation) this.cache.set(key, value);
    return value;
  }

  /** Drops everything kept: called after a write that may change what was read. */
  forget(): void {
    this.generation++;
    this.cache.clear();
  }
}
