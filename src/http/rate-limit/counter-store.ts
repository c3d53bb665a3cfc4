/** Counts hits per key in fixed windows aligned to multiples of the window length. */
export interface CounterStore {
  /** Adds one hit for `key` in the window that starts at `windowStart`; resolves to the window's count. */
  hit(key: string, windowStart: number, windowMs: number): Promise<number>;
  close(): Promise<void>;
}

/** In-process counters: right for one instance. Expired windows are swept as time moves on. */
export class MemoryCounterStore implements CounterStore {
  private readonly counts = new Map<string, number>();
  private currentWindow = 0;

  async hit(key: string, windowStart: number): Promise<number> {
    if (windowStart !== this.currentWindow) {
      // Windows are aligned, so a new window start means every older counter is dead.
      this.counts.clear();
      this.currentWindow = windowStart;
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return count;
  }

  async close(): Promise<void> {
    this.counts.clear();
  }
}
