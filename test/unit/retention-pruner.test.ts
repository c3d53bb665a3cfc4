import { describe, expect, it } from 'vitest';
import { PRUNE_CHUNK, RetentionPruner } from '../../src/lifecycle/retention-pruner.ts';
import { createLogger } from '../../src/logging.ts';

const timing = { retentionMs: 60_000, pruneIntervalMs: 1_000 };
const NOW = Date.parse('2026-11-25T12:00:00.000Z');

describe('RetentionPruner', () => {
  it('deletes chunk after chunk until one comes back short, with the retention cutoff', async () => {
    const calls: [string, number][] = [];
    const chunks = [PRUNE_CHUNK, PRUNE_CHUNK, 7];
    const pruner = new RetentionPruner(
      'log',
      async (cutoff, limit) => (calls.push([cutoff, limit]), chunks.shift()!),
      createLogger('silent'),
      timing,
      () => NOW,
    );
    expect(await pruner.prune()).toBe(2 * PRUNE_CHUNK + 7);
    expect(calls).toEqual(Array.from({ length: 3 }, () => ['2026-11-25T11:59:00.000Z', PRUNE_CHUNK]));
  });

  it('reports what it deleted before a failure and leaves the rest to the next interval', async () => {
    const chunks = [PRUNE_CHUNK];
    const pruner = new RetentionPruner(
      'log',
      async () => {
        const next = chunks.shift();
        if (next === undefined) throw new Error('database went away');
        return next;
      },
      createLogger('silent'),
      timing,
      () => NOW,
    );
    expect(await pruner.prune()).toBe(PRUNE_CHUNK);
  });
});
