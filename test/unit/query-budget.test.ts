import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { mainThreadHeapGuard, MoveToWorker, QueryBudget } from '../../src/content/query/query-budget.ts';

describe('the heap guard of a main-thread query', () => {
  it('moves a query to a worker once it works while the heap holds more than the guard', () => {
    const charged = new QueryBudget({ timeoutMs: 60_000, sliceMs: 60_000, maxTextChars: Infinity, heapGuardBytes: 1 });
    // A run that has charged little (a lookup) is not moved, however full the heap.
    expect(() => charged.beginRun()).not.toThrow();
    expect(() => charged.charge(100)).not.toThrow();
    expect(() => charged.charge(10_000)).toThrow(MoveToWorker);
    const again = new QueryBudget({ timeoutMs: 60_000, sliceMs: 60_000, maxTextChars: Infinity, heapGuardBytes: 1 });
    expect(() => again.charge(10_000)).toThrow(/heap is more than 0 MB full/);
  });

  it('lets a query run while the heap is below the guard, and has none in a worker', () => {
    const guarded = new QueryBudget({ timeoutMs: 60_000, sliceMs: 60_000, maxTextChars: Infinity, heapGuardBytes: mainThreadHeapGuard() });
    guarded.beginRun();
    expect(() => guarded.charge(100_000)).not.toThrow();
    const inWorker = new QueryBudget({ timeoutMs: 60_000, sliceMs: Infinity, maxTextChars: Infinity });
    inWorker.beginRun();
    expect(() => inWorker.charge(100_000)).not.toThrow();
  });

  it('is half of the heap limit', () => {
    expect(mainThreadHeapGuard()).toBe(getHeapStatistics().heap_size_limit / 2);
  });
});
