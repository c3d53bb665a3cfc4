import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject, createUser, type TestProject, type TestUser } from '../helpers/fixtures.ts';
import { testEngine } from '../helpers/engine.ts';
import { eventually } from '../helpers/eventually.ts';
import { signInThroughPage, tokenOf } from '../helpers/login-page.ts';
import { location, PresenceClient, presenceUrl } from '../helpers/presence.ts';
import { DEFAULT_PRESENCE_SETTINGS } from '../../src/realtime/presence/presence-service.ts';

describe(`presence over /socket/:dataset (${testEngine})`, () => {
  const app = useTestApp();
  let project: TestProject;
  let editor: TestUser;
  let viewer: TestUser;
  let url: string;

  beforeAll(async () => {
    editor = await createUser(app, app.admin, 'editor');
    viewer = await createUser(app, app.admin, 'viewer');
  });

  /** Each test starts from the defaults, whatever the previous one changed. */
  function settings(changes: Partial<typeof DEFAULT_PRESENCE_SETTINGS> = {}) {
    Object.assign(app.services.presence.settings, DEFAULT_PRESENCE_SETTINGS, changes);
  }

  beforeEach(async () => {
    settings();
    // Presence is per project and dataset: a project per test keeps what one leaves from the next.
    project = await createProject(app, app.admin, ['production', 'staging']);
    url = presenceUrl(app, project.slug);
  });

  it('two users see each other: the states known at subscription, announcements, roll calls and disconnects', async () => {
    // What Studio does on connect: authorization, roll call, subscription, then its location.
    const ed = await PresenceClient.open(url);
    expect(await ed.call('authorization', { authorization: `Bearer ${editor.token}` })).toMatchObject({ jsonrpc: '2.0', result: true });
    expect((await ed.call('presence_rollcall', { session: 'ed-session-00001' })).result).toBe(true);
    const edSubscription = (await ed.call('presence_subscribe')).result;
    expect(edSubscription).toEqual(expect.any(String));
    expect((await ed.call('presence_announce', { data: { locations: [location('post-1')], sessionId: 'ed-session-00001' } })).result).toBe(true);

    const vi = await PresenceClient.connect(url, viewer.token);
    // The viewer learns of the editor at once, from the states the server holds.
    expect(await vi.event('state')).toEqual({ type: 'state', i: editor.id, m: { sessionId: 'ed-session-00001', locations: [location('post-1')].map(withAnyTime) } });
    expect(vi.frames).toEqual([]);

    // The viewer calls the roll: the editor is asked (its own request is not echoed to it)...
    await vi.call('presence_rollcall', { session: 'vi-session-00001' });
    expect(await ed.event('rollCall')).toEqual({ type: 'rollCall', i: viewer.id, session: 'vi-session-00001' });
    // ...and announces again, with a path and a Portable Text selection.
    const selection = { anchor: { path: [{ _key: 'b1' }, 'children', { _key: 's1' }], offset: 3 }, focus: { path: [{ _key: 'b1' }, 'children', { _key: 's1' }], offset: 5 }, backward: false };
    const typing = { ...location('drafts.post-1', ['body', { _key: 'b1' }, 'children', { _key: 's1' }, 'text']), selection };
    await ed.call('presence_announce', { data: { locations: [typing], sessionId: 'ed-session-00001' } });
    expect(await vi.event('state')).toEqual({ type: 'state', i: editor.id, m: { sessionId: 'ed-session-00001', locations: [typing] } });

    await vi.call('presence_announce', { data: { locations: [location('post-1', [])], sessionId: 'vi-session-00001' } });
    expect(await ed.event('state')).toMatchObject({ type: 'state', i: viewer.id, m: { sessionId: 'vi-session-00001' } });
    // Messages go to the others only: nobody hears their own.
    expect(ed.events()).toEqual([]);
    expect(vi.events()).toEqual([]);
    expect(app.services.presence.sessions).toBe(2);

    // Studio's sign-off on page unload.
    expect((await ed.call('presence_disconnect', { session: 'ed-session-00001' })).result).toBe(true);
    expect(await vi.event('disconnect')).toEqual({ type: 'disconnect', i: editor.id, m: { session: 'ed-session-00001' } });
    // A connection that ends takes its sessions with it.
    await vi.close();
    expect(await ed.event('disconnect')).toEqual({ type: 'disconnect', i: viewer.id, m: { session: 'vi-session-00001' } });
    expect((await ed.call('presence_unsubscribe', { subscriptionId: edSubscription })).result).toBe(true);
    await ed.close();
    await eventually(() => (app.services.presence.sessions === 0 ? true : undefined));
  });

  it('accepts login-page sessions and API tokens of the dataset, and shares presence per project and dataset', async () => {
    const session = tokenOf(await signInThroughPage(app, editor.email, editor.password, app.url));
    const token = await createApiToken(app, app.admin, project.slug, { permissions: ['read'], dataset: 'production' });
    const staging = await PresenceClient.connect(presenceUrl(app, project.slug, 'staging'), app.admin);
    const other = await createProject(app, app.admin, ['production']);
    const elsewhere = await PresenceClient.connect(presenceUrl(app, other.slug), app.admin);

    const robot = await PresenceClient.connect(url, token.token);
    const studio = await PresenceClient.connect(url, session);
    await studio.call('presence_announce', { data: { locations: [location('post-2')], sessionId: 'session-editor-01' } });
    expect(await robot.event('state')).toMatchObject({ i: editor.id, m: { sessionId: 'session-editor-01' } });
    await robot.call('presence_announce', { data: { locations: [], sessionId: 'session-token-001' } });
    expect(await studio.event('state')).toMatchObject({ i: `token:${token.id}`, m: { sessionId: 'session-token-001', locations: [] } });

    // Another dataset of the project, and another project's dataset of the same name, hear nothing.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(staging.events()).toEqual([]);
    expect(elsewhere.events()).toEqual([]);
    for (const client of [robot, studio, staging, elsewhere]) await client.close();
  });

  it('refuses a connection without a valid credential or access: an error reply, then a close with its code', async () => {
    const refusals: [string, (client: PresenceClient) => Promise<void>, number][] = [
      ['a request before authorization', async (client) => void client.request('presence_subscribe'), 4001],
      ['a wrong token', async (client) => void client.request('authorization', { authorization: 'Bearer not-a-token' }), 4001],
      ['no bearer', async (client) => void client.request('authorization', { authorization: app.admin }), 4001],
    ];
    const outsider = await createUser(app, app.admin, 'editor', { project_access: [] });
    const stagingToken = await createApiToken(app, app.admin, project.slug, { permissions: ['read'], dataset: 'staging' });
    refusals.push(['a user without access to the project', async (client) => void client.request('authorization', { authorization: `Bearer ${outsider.token}` }), 4004]);
    refusals.push(['a token of another dataset', async (client) => void client.request('authorization', { authorization: `Bearer ${stagingToken.token}` }), 4003]);
    for (const [what, act, code] of refusals) {
      const client = await PresenceClient.open(url);
      await act(client);
      const reply = await client.take((frame) => frame.error !== undefined, `the refusal of ${what}`);
      expect(reply.error?.code, what).toBe(code);
      expect((await client.closed).code, what).toBe(code);
    }
    // A dataset the project does not have.
    const missing = await PresenceClient.open(presenceUrl(app, project.slug, 'nope'));
    missing.request('authorization', { authorization: `Bearer ${app.admin}` });
    expect(await missing.closed).toMatchObject({ code: 4004, reason: expect.stringContaining('dataset "nope" not found') });

    // Nobody may hold a connection without authorizing.
    settings({ authorizationTimeoutMs: 200 });
    const silent = await PresenceClient.open(url);
    expect(await silent.closed).toMatchObject({ code: 4001, reason: expect.stringContaining('no "authorization" request') });
    settings();

    // A plain GET is not an upgrade.
    const plain = await app.request('GET', `/api/p/${project.slug}/v2022-06-30/socket/production`);
    expect(plain.status).toBe(400);
  });

  it('ends a connection whose credential is revoked, and tells connections to reconnect when the server stops', async () => {
    const token = await createApiToken(app, app.admin, project.slug, { permissions: ['read'] });
    const robot = await PresenceClient.connect(url, token.token);
    const watcher = await PresenceClient.connect(url, app.admin);
    await robot.call('presence_announce', { data: { locations: [location('post-3')], sessionId: 'revoked-session-1' } });
    await watcher.event('state');
    const deleted = await app.request('DELETE', `/api/v1/tokens/${project.slug}/${token.id}`, { token: app.admin });
    expect(deleted.status).toBe(200);
    await app.services.realtime.recheck();
    expect((await robot.take((frame) => frame.error !== undefined, 'the revocation')).error).toMatchObject({ code: 4001, message: expect.stringContaining('access ended') });
    expect((await robot.closed).code).toBe(4001);
    expect(await watcher.event('disconnect')).toMatchObject({ m: { session: 'revoked-session-1' } });

    // What the server does on SIGTERM (before Fastify closes): 1012, so Studio reconnects elsewhere.
    app.services.realtime.shutdown();
    expect((await watcher.closed).code).toBe(1012);
  });

  it('answers mistakes with JSON-RPC errors and keeps the connection', async () => {
    const client = await PresenceClient.connect(url, app.admin);
    client.send('{not json');
    expect((await client.take((frame) => frame.error?.code === -32700, 'a parse error'))).toMatchObject({ id: null });
    client.send(JSON.stringify([{ jsonrpc: '2.0', method: 'presence_rollcall', id: 'batch' }]));
    await client.take((frame) => frame.error?.code === -32600, 'an invalid request');
    expect((await client.call('query', { query: '*' })).error).toMatchObject({ code: -32601, message: expect.stringContaining('Method not found') });
    expect((await client.call('presence_announce', { data: { sessionId: 'x y' } })).error?.code).toBe(-32602);
    expect((await client.call('presence_announce', { data: { sessionId: 'ok-session', locations: [null] } })).error?.message).toContain('locations[0]');
    expect((await client.call('presence_announce', { data: { sessionId: 'ok-session', locations: [{ ...location('p'), path: [{ _key: 1 }] }] } })).error?.code).toBe(-32602);
    expect((await client.call('presence_unsubscribe', { subscriptionId: 'unknown' })).error).toMatchObject({ code: -32602, message: 'Subscription not found' });
    // Only what Studio reads is passed on.
    const watcher = await PresenceClient.connect(url, editor.token);
    await client.call('presence_announce', { data: { sessionId: 'ok-session', locations: [{ ...location('p'), secret: 'x' }], extra: 1 } });
    expect((await watcher.event('state')).m.locations).toEqual([location('p')].map(withAnyTime));
    // A session id another user announced is theirs.
    expect((await watcher.call('presence_announce', { data: { sessionId: 'ok-session', locations: [] } })).error).toMatchObject({ code: -32602, message: expect.stringContaining('another user') });
    expect((await client.call('presence_rollcall')).error?.code).toBe(-32602);
    await watcher.close();
    await client.close();
  });

  it('bounds what a connection may send and hold', async () => {
    settings({ maxLocations: 2, maxSessionsPerConnection: 2, maxSubscriptionsPerConnection: 2, maxStateBytes: 1024 });
    const client = await PresenceClient.connect(url, app.admin);
    expect((await client.call('presence_announce', { data: { sessionId: 'bounded-1', locations: [location('a'), location('b'), location('c')] } })).error?.message).toContain('at most 2 locations');
    expect((await client.call('presence_announce', { data: { sessionId: 'bounded-1', locations: [location('x'.repeat(250), ['z'.repeat(250), 'w'.repeat(250)]), location('y'.repeat(250), ['z'.repeat(250)])] } })).error?.message).toMatch(/the state is \d+ bytes as JSON; at most 1024/);
    await client.call('presence_announce', { data: { sessionId: 'bounded-1', locations: [] } });
    await client.call('presence_announce', { data: { sessionId: 'bounded-2', locations: [] } });
    expect((await client.call('presence_announce', { data: { sessionId: 'bounded-3', locations: [] } })).error?.message).toContain('at most 2 session ids');
    await client.call('presence_subscribe');
    expect((await client.call('presence_subscribe')).error?.message).toContain('at most 2 subscriptions');

    // Per process: sessions held.
    settings({ maxStates: app.services.presence.sessions });
    expect((await client.call('presence_announce', { data: { sessionId: 'bounded-1', locations: [location('again')] } })).result).toBe(true);
    const other = await PresenceClient.connect(url, editor.token);
    expect((await other.call('presence_announce', { data: { sessionId: 'one-too-many', locations: [] } })).error).toMatchObject({ code: -32050 });
    await other.close();

    // Rate: the burst passes, the next is refused, and a client that keeps on is cut off.
    settings({ messagesPerSecond: 1, messageBurst: 5 });
    const flood = await PresenceClient.connect(url, app.admin);
    for (let i = 0; i < 5; i++) flood.request('presence_rollcall', { session: 'flood-session' });
    const refusedId = flood.request('presence_rollcall', { session: 'flood-session' });
    expect((await flood.take((frame) => frame.id === refusedId, 'the refusal')).error).toMatchObject({ code: -32029, message: expect.stringContaining('Too many messages') });
    for (let i = 0; i < 10; i++) flood.request('presence_rollcall', { session: 'flood-session' });
    expect(await flood.closed).toEqual({ code: 1008, reason: 'too many messages' });

    // Size: a frame over the limit closes the connection.
    settings({ maxMessageBytes: 1024 });
    const big = await PresenceClient.connect(url, app.admin);
    big.request('presence_announce', { data: { sessionId: 'big', locations: [location('x'.repeat(2000))] } });
    expect(await big.closed).toEqual({ code: 1009, reason: 'message too big: at most 1024 bytes' });

    // Per process: connections.
    settings({ maxConnections: 0 });
    const refused = await PresenceClient.open(url);
    expect((await refused.closed).code).toBe(1013);
    settings();
    await client.close();
  });

  it('sends ♥ heartbeats, counts its connections in /health, and forgets sessions that stop announcing', async () => {
    settings({ heartbeatMs: 100 });
    const before = (await app.request<{ connections: number }>('GET', '/api/v1/health')).body.connections;
    const quiet = await PresenceClient.connect(url, editor.token);
    const watcher = await PresenceClient.connect(url, viewer.token);
    expect((await app.request<{ connections: number }>('GET', '/api/v1/health')).body.connections).toBe(before + 2);
    await eventually(() => (watcher.heartbeats >= 2 ? true : undefined));

    await quiet.call('presence_announce', { data: { sessionId: 'quiet-session-01', locations: [location('post-9')] } });
    await watcher.event('state');
    settings({ stateTtlMs: 50 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await watcher.call('presence_announce', { data: { sessionId: 'fresh-session-01', locations: [] } });
    // (The periodic sweep may come first: either way the session goes.)
    app.services.presence.sweep();
    expect(await watcher.event('disconnect')).toEqual({ type: 'disconnect', i: editor.id, m: { session: 'quiet-session-01' } });
    // The connection stays: announcing again brings the session back.
    await quiet.call('presence_announce', { data: { sessionId: 'quiet-session-01', locations: [] } });
    expect(await watcher.event('state')).toMatchObject({ i: editor.id, m: { sessionId: 'quiet-session-01' } });
    settings();
    await quiet.close();
    await watcher.close();
    await eventually(async () => ((await app.request<{ connections: number }>('GET', '/api/v1/health')).body.connections === before ? true : undefined));
  });
});

/** A location as sent, its time whatever it was. */
function withAnyTime(location: Record<string, unknown>): Record<string, unknown> {
  return { ...location, lastActiveAt: expect.any(String) };
}
