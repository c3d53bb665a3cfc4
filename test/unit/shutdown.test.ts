import { describe, expect, it } from 'vitest';
import { closeOnSignals } from '../../src/lifecycle/shutdown.ts';

const quiet = { info: () => undefined, error: () => undefined };
const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('closing on signals', () => {
  it('closes once on the first signal and exits 0 when closed; a second signal exits 1 at once', async () => {
    const exits: number[] = [];
    let closes = 0;
    let finish!: () => void;
    const server = { close: () => ((closes += 1), new Promise<void>((resolve) => (finish = resolve))) };
    const remove = closeOnSignals(server, { timeoutMs: 60_000, log: quiet, exit: (code) => exits.push(code), signals: ['SIGUSR2'] });
    try {
      process.emit('SIGUSR2', 'SIGUSR2');
      await tick();
      expect(closes).toBe(1);
      expect(exits).toEqual([]);
      process.emit('SIGUSR2', 'SIGUSR2');
      expect(exits).toEqual([1]);
      finish();
      await tick();
      expect(exits).toEqual([1, 0]);
      expect(closes).toBe(1);
    } finally {
      remove();
    }
  });

  it('exits 1 when closing fails or outlasts the timeout', async () => {
    const exits: number[] = [];
    const failing = closeOnSignals({ close: () => Promise.reject(new Error('boom')) }, { timeoutMs: 60_000, log: quiet, exit: (code) => exits.push(code), signals: ['SIGUSR2'] });
    process.emit('SIGUSR2', 'SIGUSR2');
    await tick();
    failing();
    expect(exits).toEqual([1]);
    const hanging = closeOnSignals({ close: () => new Promise<void>(() => undefined) }, { timeoutMs: 20, log: quiet, exit: (code) => exits.push(code), signals: ['SIGUSR2'] });
    process.emit('SIGUSR2', 'SIGUSR2');
    await new Promise((resolve) => setTimeout(resolve, 60));
    hanging();
    expect(exits).toEqual([1, 1]);
  });
});
