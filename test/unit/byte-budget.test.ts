import { describe, expect, it } from 'vitest';
import { ByteBudget } from '../../src/http/byte-budget.ts';
import { AppError } from '../../src/errors.ts';

const settled = <T>(promise: Promise<T>) => {
  const state: { done: boolean; error?: unknown } = { done: false };
  promise.then(
    () => (state.done = true),
    (error: unknown) => Object.assign(state, { done: true, error }),
  );
  return state;
};
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('a budget of bytes that requests share', () => {
  it('gives what is free at once, and makes later takers wait their turn, oldest first', async () => {
    const budget = new ByteBudget(100, 60_000, 'busy');
    expect(budget.tryTake(60)).toBe(true);
    const first = settled(budget.take(50));
    const second = settled(budget.take(10));
    await turn();
    // 10 bytes are free, but the oldest waiter goes first: nobody passes it.
    expect([first.done, second.done]).toEqual([false, false]);
    expect(budget.tryTake(10)).toBe(false);
    budget.give(60);
    await turn();
    expect([first.done, second.done]).toEqual([true, true]);
    expect(budget.tryTake(41)).toBe(false);
    expect(budget.tryTake(40)).toBe(true);
  });

  it('refuses a waiter with 503 and Retry-After once it has waited its time, and serves those behind it', async () => {
    const budget = new ByteBudget(100, 50, 'The server is busy');
    expect(budget.tryTake(90)).toBe(true);
    const large = settled(budget.take(100));
    await turn();
    const small = settled(budget.take(10));
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(large.error).toBeInstanceOf(AppError);
    expect((large.error as AppError).statusCode).toBe(503);
    expect((large.error as AppError).message).toBe('The server is busy');
    expect((large.error as AppError).headers['Retry-After']).toBe('1');
    // The one behind it fit all along: it is served when the one ahead leaves, not refused.
    expect(small).toEqual({ done: true });
  });

  it('never takes more than it has', async () => {
    const budget = new ByteBudget(100, 50, 'busy');
    await expect(budget.take(101)).rejects.toThrow(RangeError);
    expect(budget.tryTake(100)).toBe(true);
  });
});
