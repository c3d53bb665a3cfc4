import { MemoryCounterStore, type CounterStore } from './counter-store.ts';

/**
 * Shared counters (Redis) that fall back to this instance's own counters while the shared store
 * fails: a Redis outage then limits per instance instead of failing every request.
 */
export class FallbackCounterStore implements CounterStore {
  private readonly primary: CounterStore;
  private readonly fallback = new MemoryCounterStore();
  private readonly onFailure: (error: unknown) => void;
  private failing = false;

  constructor(primary: CounterStore, onFailure: (error: unknown) => void) {
    this.primary = primary;
    this.onFailure = onFailure;
  }

  async hit(key: string, windowStart: number, windowMs: number): Promise<number> {
    try {
      const count = await this.primary.hit(key, windowStart, windowMs);
      this.failing = false;
      return count;
    } catch (error) {
      // Reported once per outage, not once per request.
      if (!this.failing) this.onFailure(error);
      this.failing = true;
      return this.fallback.hit(key, windowStart);
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), this.fallback.close()]);
  }
}
