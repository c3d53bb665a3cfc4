import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { mainThreadHeapGuard, MoveToWorker, QueryBudget } from '../../src/content/query/query-budget.ts';
import { evaluate } from '../../src/groq/index.ts';

/** No slice, no limits: what the same expression gives when nothing stops it. */
const UNLIMITED_BUDGET = new QueryBudget({ timeoutMs: 60_000, sliceMs: Infinity, maxTextChars: Infinity });

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

describe('text worked through at once by a main-thread query', () => {
  // A function that works through a whole text (splitting, case mapping, matching, joining) does
  // so in one step the slice cannot interrupt: past textAtOnce the query moves before it begins.
  const steps = {
    split: 'count(string::split(body, ""))',
    upper: 'length(upper(body))',
    lower: 'length(lower(body))',
    match: 'body match "y"',
    join: 'length(array::join([body, body], ""))',
  };
  const budget = (textAtOnce?: number) => new QueryBudget({ timeoutMs: 60_000, sliceMs: 60_000, maxTextChars: Infinity, ...(textAtOnce ? { textAtOnce } : {}) });
  const run = (expression: string, body: string, on: QueryBudget) => evaluate(`*[0]{"v": ${expression}}.v`, { dataset: [{ _id: 'a', _type: 't', body }], budget: on });

  it.each(Object.entries(steps))('moves %s of more text than it may before it begins, and runs it where no such limit is set', async (_name, expression) => {
    const long = 'x'.repeat(1001);
    await expect(run(expression, long, budget(1000))).rejects.toThrow(/would work through \d+ characters of text in one step/);
    const inWorker = await run(expression, long, budget());
    expect(inWorker).toEqual(await run(expression, long, UNLIMITED_BUDGET));
  });

  it('runs the same steps on text within it', async () => {
    for (const expression of Object.values(steps)) {
      expect(await run(expression, 'x'.repeat(400), budget(1000)), expression).toEqual(await run(expression, 'x'.repeat(400), UNLIMITED_BUDGET));
    }
  });
});
