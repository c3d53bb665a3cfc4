import { describe, expect, it } from 'vitest';
import { committedAt, parseCommitHorizon } from '../../src/store/commit-order.ts';

describe('commit horizons', () => {
  it("reads SQLite's last seq: rows up to it had committed", () => {
    const horizon = parseCommitHorizon('41');
    expect(horizon).toEqual({ kind: 'seq', seq: 41 });
    expect(committedAt(horizon, { order: '0', seq: 41 })).toBe(true);
    expect(committedAt(horizon, { order: '0', seq: 42 })).toBe(false);
  });

  it("reads PostgreSQL's snapshot: before xmin, or before xmax and not then running", () => {
    const horizon = parseCommitHorizon('100:105:100,103');
    expect(horizon).toEqual({ kind: 'snapshot', xmin: 100n, xmax: 105n, running: new Set([100n, 103n]) });
    const committed = (order: number) => committedAt(horizon, { order: String(order), seq: 7 });
    expect([99, 100, 101, 102, 103, 104, 105, 106].map(committed)).toEqual([true, false, true, true, false, true, false, false]);
    expect(parseCommitHorizon('9:9:')).toEqual({ kind: 'snapshot', xmin: 9n, xmax: 9n, running: new Set() });
  });
});
