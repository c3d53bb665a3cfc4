import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MIN_REFRESH_GAP_MS, PlannerStatistics, type PlannerStatisticsEngine, type RefreshOutcome } from '../../src/store/planner-statistics.ts';

/** An engine that records what it was asked and answers as told; `release` ends the refresh under way. */
function fakeEngine(answer: (written: number) => RefreshOutcome | Error) {
  const asked: { written: number; wait: boolean }[] = [];
  let release = () => undefined as void;
  const engine: PlannerStatisticsEngine = {
    refresh: (request) => {
      asked.push(request);
      return new Promise((resolve, reject) => {
        release = () => {
          const outcome = answer(request.written);
          if (outcome instanceof Error) reject(outcome);
          else resolve(outcome);
        };
      });
    },
  };
  return { engine, asked, release: () => release() };
}

/** Lets timers due now and the promise callbacks they start run. */
async function settle(ms = 0): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}

describe('planner statistics refresh scheduling', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const refreshedAt100 = (written: number): RefreshOutcome => ({ refreshed: written >= 100, dueAfter: 100 });

  it('asks once the documents committed since the last refresh reach the mark the engine gave', async () => {
    const { engine, asked, release } = fakeEngine(refreshedAt100);
    const statistics = new PlannerStatistics(engine, { now: () => Date.now() });
    const started = statistics.refreshNow();
    await settle();
    release();
    await started;
    expect(asked).toEqual([{ written: 0, wait: true }]);
    statistics.written(60);
    await settle();
    expect(asked).toHaveLength(1);
    statistics.written(50);
    await settle();
    expect(asked).toEqual([
      { written: 0, wait: true },
      { written: 110, wait: false },
    ]);
    release();
    await settle();
    // Counted from zero again after a refresh.
    statistics.written(99);
    await settle(MIN_REFRESH_GAP_MS);
    expect(asked).toHaveLength(2);
    await statistics.close();
  });

  it('runs one refresh at a time, and at most one every gap, however many commits come', async () => {
    const { engine, asked, release } = fakeEngine(refreshedAt100);
    const statistics = new PlannerStatistics(engine, { now: () => Date.now() });
    statistics.written(100);
    await settle();
    expect(asked).toHaveLength(1);
    for (let i = 0; i < 50; i++) statistics.written(100);
    release();
    await settle();
    expect(asked).toHaveLength(1);
    await settle(MIN_REFRESH_GAP_MS - 1);
    expect(asked).toHaveLength(1);
    await settle(1);
    expect(asked.map((request) => request.written)).toEqual([100, 5000]);
    release();
    await statistics.close();
  });

  it('leaves the documents counted when another instance was refreshing, and asks again after the gap', async () => {
    const { engine, asked, release } = fakeEngine((written) => ({ refreshed: false, dueAfter: written }));
    const statistics = new PlannerStatistics(engine, { now: () => Date.now() });
    statistics.written(500);
    await settle();
    release();
    await settle(MIN_REFRESH_GAP_MS);
    expect(asked.map((request) => request.written)).toEqual([500, 500]);
    release();
    // Still due on close: asked once more.
    const closing = statistics.close();
    await settle();
    release();
    await closing;
    expect(asked).toHaveLength(3);
  });

  it('warns when a refresh fails, and asks again only once as many documents again are committed', async () => {
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const { engine, asked, release } = fakeEngine(() => new Error('connection refused'));
    const statistics = new PlannerStatistics(engine, { now: () => Date.now() });
    statistics.written(200);
    await settle();
    release();
    await settle(MIN_REFRESH_GAP_MS);
    expect(warnings).toHaveBeenCalledWith(expect.stringContaining('connection refused'));
    statistics.written(100);
    await settle(MIN_REFRESH_GAP_MS);
    expect(asked).toHaveLength(1);
    statistics.written(100);
    await settle();
    expect(asked.map((request) => request.written)).toEqual([200, 400]);
    release();
    await statistics.close();
    warnings.mockRestore();
  });

  it('runs on close a refresh that is due, so that a process that imported leaves fresh statistics', async () => {
    const { engine, asked, release } = fakeEngine(refreshedAt100);
    const statistics = new PlannerStatistics(engine, { now: () => Date.now() });
    statistics.written(100);
    await settle();
    release();
    await settle();
    // Due, but held back by the gap when the process closes.
    statistics.written(200);
    const closing = statistics.close();
    await settle();
    release();
    await closing;
    expect(asked.map((request) => request.written)).toEqual([100, 200]);
  });

  it('waits on close for the refresh under way, and asks nothing after', async () => {
    const { engine, asked, release } = fakeEngine(refreshedAt100);
    const statistics = new PlannerStatistics(engine, { now: () => Date.now() });
    statistics.written(100);
    await settle();
    let closed = false;
    const closing = statistics.close().then(() => (closed = true));
    await settle();
    expect(closed).toBe(false);
    release();
    await closing;
    statistics.written(1000);
    await settle(MIN_REFRESH_GAP_MS);
    expect(asked).toHaveLength(1);
  });
});
