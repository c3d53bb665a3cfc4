import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/test-app.ts';
import { testEngine } from '../helpers/engine.ts';

// A power loss cannot be staged here. What can be checked is the setting the guarantee rests on,
// as the writing connection of a running server has it (README, "Durability").
describe(`durability of answered writes (${testEngine})`, () => {
  const app = useTestApp();

  it('runs with the settings under which an answered write survives a power loss', async () => {
    const settings = await app.services.store.durability();
    if (testEngine === 'sqlite') {
      // FULL: the WAL is synced at every commit, before the write is answered.
      expect(settings).toEqual({ synchronous: 'full' });
    } else {
      // The server's own defaults; the service changes none of them.
      expect(settings).toEqual({ fsync: 'on', full_page_writes: 'on', synchronous_commit: 'on' });
    }
  });
});
