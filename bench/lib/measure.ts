// How the benchmarks time a piece of work and compare answers.

/** The middle value (the upper one of an even count). */
export const middle = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Median milliseconds of `run`: after `warmups` runs, it repeats until it has run for `budgetMs`
 * and at least `minRuns` times (robust to a busy machine's pauses).
 */
export async function medianMs(run: () => unknown, { warmups = 1, minRuns = 5, budgetMs = 400 } = {}): Promise<number> {
  for (let i = 0; i < warmups; i++) await run();
  const times: number[] = [];
  const started = performance.now();
  while (times.length < minRuns || performance.now() - started < budgetMs) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  return middle(times);
}

/** JSON with keys sorted and undefined as null, to compare answers (PostgreSQL's jsonb keeps its own key order). */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])]));
  }
  return value ?? null;
}
