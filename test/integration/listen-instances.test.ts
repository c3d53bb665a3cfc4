import { describe, expect, it } from 'vitest';
import { startTestApp } from '../helpers/test-app.ts';
import { createProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { createTestDatabase, testEngine } from '../helpers/engine.ts';
import { listenUrl, openEventStream, openListenSocket } from '../helpers/listen.ts';

describe(`listeners with several instances on one database (${testEngine})`, () => {
  it('delivers a change committed on one instance to listeners on every instance, woken by the signal', async () => {
    const db = createTestDatabase();
    const one = await startTestApp({}, { db, workers: true });
    const two = await startTestApp({}, { db });
    try {
      // Polling effectively off: only the signal (LISTEN/NOTIFY, or in-process commits) can wake them.
      for (const instance of [one, two]) instance.services.realtime.settings.pollIntervalMs = 600_000;
      const admin = await one.login();
      const project = await createProject(one, admin);
      const socket = await openListenSocket(listenUrl(two, 'production', `?project=${project.slug}`), { authorization: `Bearer ${admin}` });
      await socket.subscribe({ query: '*[_type == "shared"]', includeResult: true });
      const stream = await openEventStream(`${one.url}/api/v1/data/listen/production?project=${project.slug}&query=${encodeURIComponent('*[_type == "shared"]')}`, {
        authorization: `Bearer ${admin}`,
      });
      await stream.next('welcome');

      const fromOne = ok(await dataClient(one, admin, project.slug).mutate([{ create: { _id: 'shared-1', _type: 'shared', from: 'one' } }]));
      expect(await socket.next('mutation')).toMatchObject({ transactionId: fromOne.transactionId, transition: 'appear', result: { from: 'one' } });
      expect((await stream.next('mutation')).json).toMatchObject({ transactionId: fromOne.transactionId });

      const fromTwo = ok(await dataClient(two, admin, project.slug).mutate([{ patch: { id: 'shared-1', set: { from: 'two' } } }]));
      expect(await socket.next('mutation')).toMatchObject({ transactionId: fromTwo.transactionId, transition: 'update', result: { from: 'two' } });
      expect((await stream.next('mutation')).json).toMatchObject({ transactionId: fromTwo.transactionId, transition: 'update' });
      stream.close();
      await socket.close();
    } finally {
      await two.close({ keepDatabase: true });
      await one.close();
    }
  });
});
