import { describe, expect, it } from 'vitest';
import { Readiness } from '../../src/lifecycle/readiness.ts';

describe('readiness', () => {
  it('is ready while every check answers', async () => {
    expect(await new Readiness({ database: async () => 1 }).report()).toEqual({ ready: true, status: 'ready', checks: { database: 'ok' } });
  });

  it('is unavailable while a check fails or does not answer in time', async () => {
    const failing = new Readiness({ database: () => Promise.reject(new Error('down')), other: async () => 1 });
    expect(await failing.report()).toEqual({ ready: false, status: 'unavailable', checks: { database: 'failed', other: 'ok' } });
    const hanging = new Readiness({ database: () => new Promise(() => undefined) }, 50);
    expect(await hanging.report()).toEqual({ ready: false, status: 'unavailable', checks: { database: 'failed' } });
  });

  it('is draining for good once drained, whatever the checks say', async () => {
    const readiness = new Readiness({ database: async () => 1 });
    readiness.drain();
    readiness.drain();
    expect(readiness.draining).toBe(true);
    expect(await readiness.report()).toEqual({ ready: false, status: 'draining', checks: { database: 'ok' } });
  });
});
