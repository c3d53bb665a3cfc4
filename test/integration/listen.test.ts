import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, useTestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject, createUser, type TestProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';
import { eventually } from '../helpers/eventually.ts';
import { listenUrl, openListenSocket, refusedUpgrade, type ListenSocket, type Message } from '../helpers/listen.ts';

describe(`real-time listeners over WebSocket (${testEngine})`, () => {
  const app = useTestApp();
  let project: TestProject;
  let data: ReturnType<typeof dataClient>;
  const sockets: ListenSocket[] = [];

  beforeAll(async () => {
    project = await createProject(app, app.admin, ['production', 'staging']);
    data = dataClient(app, app.admin, project.slug);
  });
  afterAll(async () => {
    for (const socket of sockets) await socket.close();
  });

  /** A socket on the test project's dataset, closed after the tests. */
  async function connect(options: { token?: string; dataset?: string; query?: string } = {}): Promise<ListenSocket> {
    const query = options.query ?? `?project=${project.slug}`;
    const socket = await openListenSocket(listenUrl(app, options.dataset, query), { authorization: `Bearer ${options.token ?? app.admin}` });
    sockets.push(socket);
    return socket;
  }

  const mutation = (socket: ListenSocket) => socket.next('mutation');

  it('says welcome, then sends appear, update and disappear in commit order with the fields of the protocol', async () => {
    const socket = await connect();
    const welcome = await socket.subscribe({ query: "*[_type == 'post' && published == true]", includeResult: true });
    expect(welcome.listenerId).toEqual(expect.any(String));

    const created = ok(await data.mutate([{ create: { _id: 'post-1', _type: 'post', title: 'One', published: true } }]));
    const appear = await mutation(socket);
    expect(appear).toMatchObject({
      type: 'mutation',
      eventId: `${created.transactionId}#post-1`,
      documentId: 'post-1',
      transactionId: created.transactionId,
      transition: 'appear',
      resultRev: created.transactionId,
      visibility: 'query',
      result: { _id: 'post-1', _type: 'post', title: 'One', published: true, _rev: created.transactionId },
    });
    expect(appear.previousRev).toBeUndefined();
    expect(new Date(appear.timestamp as string).toISOString()).toBe(appear.timestamp);

    const patched = ok(await data.mutate([{ patch: { id: 'post-1', set: { title: 'One, again' } } }]));
    expect(await mutation(socket)).toMatchObject({ transition: 'update', previousRev: created.transactionId, resultRev: patched.transactionId, result: { title: 'One, again' } });

    // Changed out of the filter: it disappears, with the document as it is now.
    await data.mutate([{ patch: { id: 'post-1', set: { published: false } } }]);
    expect(await mutation(socket)).toMatchObject({ transition: 'disappear', result: { published: false } });
    // Changes that match neither before nor after are not sent; the next one that matches is.
    await data.mutate([{ patch: { id: 'post-1', set: { title: 'Hidden' } } }]);
    await data.mutate([{ create: { _id: 'page-1', _type: 'page', published: true } }]);
    await data.mutate([{ patch: { id: 'post-1', set: { published: true } } }]);
    expect(await mutation(socket)).toMatchObject({ documentId: 'post-1', transition: 'appear', result: { title: 'Hidden' } });
    const deleted = ok(await data.mutate([{ delete: { id: 'post-1' } }]));
    const gone = await mutation(socket);
    expect(gone).toMatchObject({ documentId: 'post-1', transition: 'disappear', transactionId: deleted.transactionId });
    expect(gone.result).toBeUndefined();
    expect(socket.messages.all).toEqual([]);
  });

  it('sends one event per matching document of a transaction, in order, with what the options ask for', async () => {
    const socket = await connect();
    await socket.subscribe({ query: '*[_type == "item"]', includePreviousRevision: true, includeMutations: true });
    const first = ok(await data.mutate([{ create: { _id: 'item-a', _type: 'item', n: 1 } }]));
    await mutation(socket);
    const second = ok(
      await data.mutate([
        { create: { _id: 'item-b', _type: 'item', n: 2 } },
        { patch: { id: 'item-a', inc: { n: 10 } } },
        { create: { _id: 'other', _type: 'other' } },
      ]),
    );
    const events = [await mutation(socket), await mutation(socket)];
    expect(events.map((event) => [event.documentId, event.transition, event.transactionId])).toEqual([
      ['item-b', 'appear', second.transactionId],
      ['item-a', 'update', second.transactionId],
    ]);
    const update = events[1]!;
    expect(update.previous).toMatchObject({ _id: 'item-a', n: 1, _rev: first.transactionId });
    expect(update.mutations).toEqual([{ patch: { id: 'item-a', inc: { n: 10 } } }]);
    expect(update.result).toBeUndefined();
    expect(events[0]!.previous).toBeNull();
  });

  it('applies params and the filter to the document before and after each change', async () => {
    const socket = await connect();
    await socket.subscribe({ query: '*[_type == $type && score >= $min]', params: { type: 'game', $min: 10 }, includeResult: true });
    await data.mutate([{ create: { _id: 'game-1', _type: 'game', score: 5 } }]);
    await data.mutate([{ create: { _id: 'game-2', _type: 'game', score: 20 } }]);
    expect(await mutation(socket)).toMatchObject({ documentId: 'game-2', transition: 'appear' });
    await data.mutate([{ patch: { id: 'game-1', set: { score: 15 } } }]);
    expect(await mutation(socket)).toMatchObject({ documentId: 'game-1', transition: 'appear', result: { score: 15 } });
    await data.mutate([{ patch: { id: 'game-2', set: { score: 1 } } }]);
    expect(await mutation(socket)).toMatchObject({ documentId: 'game-2', transition: 'disappear', result: { score: 1 } });
    // Projections and ordering are ignored, as in Sanity: events carry whole documents.
    const projected = await connect();
    await projected.subscribe({ query: '*[_type == "game"]{score} | order(score desc)' });
    await data.mutate([{ patch: { id: 'game-1', inc: { score: 1 } } }]);
    expect(await mutation(projected)).toMatchObject({ documentId: 'game-1', transition: 'update' });
  });

  it('sees drafts, publishing (the draft disappears, the document appears) and unpublishing', async () => {
    const socket = await connect();
    await socket.subscribe({ query: '*[_type == "article"]' });
    const drafts = await connect();
    await drafts.subscribe({ query: '*[_id in path("drafts.**")]' });

    await data.mutate([{ create: { _id: 'drafts.article-1', _type: 'article', title: 'Draft' } }]);
    expect(await mutation(socket)).toMatchObject({ documentId: 'drafts.article-1', transition: 'appear' });
    expect(await mutation(drafts)).toMatchObject({ documentId: 'drafts.article-1', transition: 'appear' });

    ok(await data.publish('article-1'));
    const published = [await mutation(socket), await mutation(socket)];
    expect(published.map((event) => [event.documentId, event.transition]).sort()).toEqual([
      ['article-1', 'appear'],
      ['drafts.article-1', 'disappear'],
    ]);
    expect(published[0]!.transactionId).toBe(published[1]!.transactionId);
    expect(await mutation(drafts)).toMatchObject({ documentId: 'drafts.article-1', transition: 'disappear' });

    ok(await data.unpublish('article-1'));
    const unpublished = [await mutation(socket), await mutation(socket)];
    expect(unpublished.map((event) => [event.documentId, event.transition]).sort()).toEqual([
      ['article-1', 'disappear'],
      ['drafts.article-1', 'appear'],
    ]);
    expect(await mutation(drafts)).toMatchObject({ documentId: 'drafts.article-1', transition: 'appear' });
  });

  it('answers bad messages with the standard error fields and stays usable', async () => {
    const socket = await connect();
    const expectError = async (message: unknown, pattern: RegExp) => {
      socket.send(message);
      const error = await socket.next('error');
      expect(error).toEqual({ type: 'error', statusCode: 400, error: 'Bad Request', message: expect.stringMatching(pattern) });
    };
    await expectError('not json', /JSON/);
    await expectError([1, 2], /JSON objects/);
    await expectError({ query: '*' }, /type/);
    await expectError({ type: 'listen' }, /Unknown message type "listen"/);
    await expectError({ type: 'subscribe' }, /query/);
    await expectError({ type: 'subscribe', query: '*[_type == "post"' }, /syntax error at line 1, column \d+/);
    await expectError({ type: 'subscribe', query: '*[_type == $type]' }, /\$type/);
    await expectError({ type: 'subscribe', query: 'count(*)' }, /filter of documents/);
    await expectError({ type: 'subscribe', query: '*[_type == "post"][0]' }, /filter of documents/);
    await expectError({ type: 'subscribe', query: '*[author->name == "Ann"]' }, /->/);
    await expectError({ type: 'subscribe', query: '*[_id in *[_type == "a"]._id]' }, /subqueries/);
    await expectError({ type: 'subscribe', query: '*', params: [1] }, /params/);
    await expectError({ type: 'subscribe', query: '*', includeResult: 'yes' }, /includeResult/);
    await expectError({ type: 'subscribe', query: '*', extra: 1 }, /unknown property "extra"/);
    socket.send({ type: 'ping' });
    await socket.next('pong');

    const welcome = await socket.subscribe({ query: '*[_type == "after-errors"]' });
    await data.mutate([{ create: { _type: 'after-errors' } }]);
    expect(await mutation(socket)).toMatchObject({ transition: 'appear' });
    // A new subscribe replaces the previous one; unsubscribe ends it.
    const second = await socket.subscribe({ query: '*[_type == "second"]' });
    expect(second.listenerId).not.toBe(welcome.listenerId);
    await data.mutate([{ create: { _type: 'after-errors' } }, { create: { _id: 'second-1', _type: 'second' } }]);
    expect(await mutation(socket)).toMatchObject({ documentId: 'second-1' });
    socket.send({ type: 'unsubscribe' });
    expect(await socket.next('unsubscribed')).toMatchObject({ listenerId: second.listenerId });
    await data.mutate([{ create: { _type: 'second' } }]);
    socket.send({ type: 'ping' });
    await socket.next('pong');
    expect(socket.messages.all.filter((message: Message) => message.type === 'mutation')).toEqual([]);
  });

  it('closes the socket on a frame over 1 MiB (1009) instead of reading it', async () => {
    const socket = await connect();
    socket.send(JSON.stringify({ type: 'subscribe', query: `*[_type == "${'x'.repeat(1_100_000)}"]` }));
    expect((await socket.closed).code).toBe(1009);
  });

  it('refuses the upgrade without valid credentials (401), and takes access_token in the query string', async () => {
    const url = listenUrl(app, 'production', `?project=${project.slug}`);
    const missing = await refusedUpgrade(url);
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: expect.any(String) });
    expect((await refusedUpgrade(url, { authorization: 'Bearer not-a-token' })).body.statusCode).toBe(401);
    expect((await refusedUpgrade(url, { authorization: 'Basic abc' })).status).toBe(401);
    expect((await refusedUpgrade(`${url}&access_token=svc_unknown`)).status).toBe(401);

    const viaQuery = await openListenSocket(`${url}&access_token=${encodeURIComponent(app.admin)}`);
    sockets.push(viaQuery);
    await viaQuery.subscribe({ query: '*[_type == "via-query"]' });
    await data.mutate([{ create: { _type: 'via-query' } }]);
    expect(await mutation(viaQuery)).toMatchObject({ transition: 'appear' });
    // Other routes do not take credentials from the query string.
    expect((await app.request('GET', `/api/v1/projects?access_token=${encodeURIComponent(app.admin)}`)).status).toBe(401);
  });

  it('gives listeners the access of queries: viewers and read tokens in, other datasets and projects out (403/404)', async () => {
    const viewer = await createUser(app, app.admin, 'viewer');
    const socket = await connect({ token: viewer.token });
    await socket.subscribe({ query: '*[_type == "for-viewers"]' });
    const read = await createApiToken(app, app.admin, project.slug, { dataset: 'production' });
    const tokenSocket = await connect({ token: read.token, query: '' });
    await tokenSocket.subscribe({ query: '*[_type == "for-viewers"]' });
    await data.mutate([{ create: { _type: 'for-viewers' } }]);
    expect(await mutation(socket)).toMatchObject({ transition: 'appear' });
    expect(await mutation(tokenSocket)).toMatchObject({ transition: 'appear' });

    const staging = await createApiToken(app, app.admin, project.slug, { dataset: 'staging' });
    const scoped = await refusedUpgrade(listenUrl(app, 'production'), { authorization: `Bearer ${staging.token}` });
    expect(scoped.body).toEqual({ statusCode: 403, error: 'Forbidden', message: expect.stringContaining('staging') });
    const other = await createProject(app, app.admin);
    const foreign = await refusedUpgrade(listenUrl(app, 'production', `?project=${other.slug}`), { authorization: `Bearer ${read.token}` });
    expect(foreign.status).toBe(403);
    const outsider = await createUser(app, app.admin, 'viewer', { project_access: [{ projectId: other.id, role: 'viewer' }] });
    expect((await refusedUpgrade(listenUrl(app, 'production', `?project=${project.slug}`), { authorization: `Bearer ${outsider.token}` })).status).toBe(404);
    expect((await refusedUpgrade(listenUrl(app, 'nosuchdataset', `?project=${project.slug}`), { authorization: `Bearer ${app.admin}` })).body.statusCode).toBe(404);
    expect((await refusedUpgrade(listenUrl(app, 'Bad Name!', `?project=${project.slug}`), { authorization: `Bearer ${app.admin}` })).body.statusCode).toBe(400);
  });

  it('disconnects a listener whose credential is revoked, telling why', async () => {
    const token = await createApiToken(app, app.admin, project.slug);
    const socket = await connect({ token: token.token });
    await socket.subscribe({ query: '*' });
    // Still valid: the periodic check (every recheckMs) leaves it open.
    await app.services.realtime.recheck();
    expect((await app.request('DELETE', `/api/v1/tokens/${project.slug}/${token.id}`, { token: app.admin })).status).toBe(200);
    await app.services.realtime.recheck();
    expect(await socket.next('error')).toEqual({ type: 'error', statusCode: 401, error: 'Unauthorized', message: expect.any(String) });
    expect(await socket.closed).toMatchObject({ code: 1008, reason: expect.stringContaining('access ended') });
  });

  it('counts open WebSocket connections in GET /health, up and down', async () => {
    const health = async () => (await app.request<{ connections: number }>('GET', '/api/v1/health')).body.connections;
    const before = await health();
    const one = await connect();
    const two = await connect();
    expect(await health()).toBe(before + 2);
    await one.close();
    await eventually(async () => ((await health()) === before + 1 ? true : undefined));
    await two.close();
    await eventually(async () => ((await health()) === before ? true : undefined));
  });

  it('pings idle connections to keep them open', async () => {
    app.services.realtime.settings.heartbeatMs = 50;
    try {
      const socket = await connect();
      let pings = 0;
      socket.socket.on('ping', () => pings++);
      await eventually(() => (pings >= 3 ? true : undefined));
      expect(socket.socket.readyState).toBe(socket.socket.OPEN);
    } finally {
      app.services.realtime.settings.heartbeatMs = 25_000;
    }
  });

  it('cuts off a consumer that stops reading, with a reason, instead of buffering without bound', async () => {
    const limit = 256 * 1024;
    app.services.realtime.settings.maxBufferedBytes = limit;
    try {
      const slow = await connect();
      await slow.subscribe({ query: '*[_type == "bulk"]', includeResult: true });
      const { registry } = app.services.realtime;
      const subscribed = registry.size;
      slow.socket.pause();
      // About 24 MB of events: far more than the socket buffers on both sides hold.
      const text = 'x'.repeat(40_000);
      const writing = (async () => {
        for (let batch = 0; batch < 12; batch++) {
          ok(await data.mutate(Array.from({ length: 50 }, () => ({ create: { _type: 'bulk', text } }))));
        }
      })();
      // The server gives up on it (its subscription ends) long before all events are out. The
      // client reads again at once: the server waits a few seconds for the closing handshake.
      await eventually(() => (registry.size === subscribed - 1 ? true : undefined), 30_000);
      slow.socket.resume();
      await writing;
      const closed = await slow.closed;
      expect(closed.code).toBe(1008);
      expect(closed.reason).toBe(`slow consumer: more than ${limit} bytes unsent`);
      // It got a prefix of the events, not all 600.
      expect(slow.messages.all.filter((message) => message.type === 'mutation').length).toBeLessThan(600);
    } finally {
      app.services.realtime.settings.maxBufferedBytes = 4 * 1024 * 1024;
    }
  }, 60_000);

  it('tells listeners to reconnect when the server stops', async () => {
    const other = await startTestApp({}, { db: app.db });
    const socket = await openListenSocket(listenUrl(other, 'production', `?project=${project.slug}`), { authorization: `Bearer ${app.admin}` });
    await socket.subscribe({ query: '*' });
    await other.close({ keepDatabase: true });
    expect(await socket.next('reconnect')).toMatchObject({ type: 'reconnect' });
    expect(await socket.closed).toMatchObject({ code: 1012 });
  });
});
