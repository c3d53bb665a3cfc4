// Ids the service makes are UUIDs version 7 that always grow (see src/new-id.ts).
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/new-id.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newId', () => {
  it('makes UUIDs version 7 that grow, also many within one millisecond', () => {
    const ids = Array.from({ length: 20_000 }, () => newId());
    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('starts with the time in milliseconds', () => {
    const before = Date.now();
    const id = newId();
    const ms = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    // At or after the clock (a burst of earlier ids may have borrowed the next milliseconds).
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThan(Date.now() + 1_000);
  });
});
