import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/http/rate-limit/rate-limiter.ts';
import { MemoryCounterStore } from '../../src/http/rate-limit/counter-store.ts';

describe('rate limiter (fixed one-minute windows)', () => {
  it('allows `limit` hits per key and window, then refuses with the seconds left', async () => {
    let now = 1_800_000_000_000 + 15_000; // 15 s into a window
    const limiter = new RateLimiter(new MemoryCounterStore(), 60_000, () => now);
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await limiter.hit('a', 3));
    expect(results.map((r) => [r.allowed, r.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(results[3]!.retryAfter).toBe(45);
    expect(results[3]!.resetAt).toBe((1_800_000_000_000 + 60_000) / 1000);
    expect((await limiter.hit('b', 3)).remaining).toBe(2);
    now += 45_000; // next window
    expect(await limiter.hit('a', 3)).toMatchObject({ allowed: true, remaining: 2 });
  });
});

describe('rate limiter when the shared counters fail', () => {
  it('counts per instance instead, reporting the outage once', async () => {
    const { FallbackCounterStore } = await import('../../src/http/rate-limit/fallback-counter-store.ts');
    let down = true;
    const failures: unknown[] = [];
    const shared = new MemoryCounterStore();
    const broken = {
      hit: async (key: string, windowStart: number) => {
        if (down) throw new Error('ECONNREFUSED');
        return shared.hit(key, windowStart);
      },
      close: async () => undefined,
    };
    const limiter = new RateLimiter(new FallbackCounterStore(broken, (error) => failures.push(error)), 60_000, () => 1_800_000_000_000);
    expect((await limiter.hit('a', 2)).remaining).toBe(1);
    expect((await limiter.hit('a', 2)).remaining).toBe(0);
    expect((await limiter.hit('a', 2)).allowed).toBe(false);
    expect(failures).toHaveLength(1);
    down = false;
    expect((await limiter.hit('a', 2)).remaining).toBe(1);
  });
});
