import { describe, expect, it } from 'vitest';
import { startTestApp } from '../helpers/test-app.ts';
import { createProject, createUser } from '../helpers/fixtures.ts';
import { createTestDatabase, testEngine } from '../helpers/engine.ts';
import { location, PresenceClient, presenceUrl } from '../helpers/presence.ts';
import { eventually } from '../helpers/eventually.ts';

describe(`presence with several instances on one database (${testEngine})`, () => {
  it('reaches editors connected to another instance: states, roll calls, disconnects, and a session that moves', async () => {
    const db = createTestDatabase();
    const one = await startTestApp({}, { db });
    const two = await startTestApp({}, { db });
    try {
      const admin = await one.login();
      const project = await createProject(one, admin);
      const editor = await createUser(one, admin, 'editor');
      const viewer = await createUser(one, admin, 'viewer');

      const ed = await PresenceClient.connect(presenceUrl(one, project.slug), editor.token);
      const vi = await PresenceClient.connect(presenceUrl(two, project.slug), viewer.token);
      await vi.call('presence_announce', { data: { sessionId: 'viewer-tab-00001', locations: [location('post-1')] } });
      expect(await ed.event('state')).toMatchObject({ type: 'state', i: viewer.id, m: { sessionId: 'viewer-tab-00001', locations: [{ documentId: 'post-1' }] } });

      await ed.call('presence_rollcall', { session: 'editor-tab-00001' });
      expect(await vi.event('rollCall')).toEqual({ type: 'rollCall', i: editor.id, session: 'editor-tab-00001' });
      await ed.call('presence_announce', { data: { sessionId: 'editor-tab-00001', locations: [location('post-1', ['body'])] } });
      expect(await vi.event('state')).toMatchObject({ i: editor.id, m: { sessionId: 'editor-tab-00001', locations: [{ path: ['body'] }] } });

      // Both instances hold both sessions: a newcomer on either sees them at once.
      const late = await PresenceClient.connect(presenceUrl(one, project.slug), admin);
      const known = [await late.event('state'), await late.event('state')].map((state) => state.m.sessionId).sort();
      expect(known).toEqual(['editor-tab-00001', 'viewer-tab-00001']);

      // The editor reloads the tab and lands on the other instance with the same session id, before
      // the old connection is gone: the old one's end does not take the session away.
      const reloaded = await PresenceClient.connect(presenceUrl(two, project.slug), editor.token);
      await reloaded.call('presence_announce', { data: { sessionId: 'editor-tab-00001', locations: [location('post-2')] } });
      expect(await late.event('state')).toMatchObject({ i: editor.id, m: { sessionId: 'editor-tab-00001', locations: [{ documentId: 'post-2' }] } });
      await ed.close();
      // Once the old connection's end is handled, a roll call from the same instance follows its disconnect.
      await eventually(() => (one.services.realtime.connections === 1 ? true : undefined));
      await late.call('presence_rollcall', { session: 'admin-tab-000001' });
      await reloaded.event('rollCall');
      expect(late.events().filter((event) => event.type === 'disconnect')).toEqual([]);
      expect(reloaded.events().filter((event) => event.type === 'disconnect')).toEqual([]);
      expect(two.services.presence.sessions).toBe(2);

      // A connection that ends on one instance disconnects its sessions everywhere.
      await vi.close();
      expect(await late.event('disconnect')).toEqual({ type: 'disconnect', i: viewer.id, m: { session: 'viewer-tab-00001' } });
      expect(await reloaded.event('disconnect')).toEqual({ type: 'disconnect', i: viewer.id, m: { session: 'viewer-tab-00001' } });
      expect(late.events().filter((event) => event.type === 'disconnect')).toEqual([]);
      expect(one.services.presence.sessions).toBe(1);
      expect(two.services.presence.sessions).toBe(1);
      await reloaded.close();
      await late.close();
    } finally {
      await two.close({ keepDatabase: true });
      await one.close();
    }
  });
});
