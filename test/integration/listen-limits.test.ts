import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, httpRequest, useTestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject, type TestProject } from '../helpers/fixtures.ts';
import { testEngine } from '../helpers/engine.ts';
import { eventually } from '../helpers/eventually.ts';
import { PresenceClient, presenceUrl } from '../helpers/presence.ts';
import { listenUrl, openEventStream, openListenSocket, refusedUpgrade, type EventStream, type ListenSocket } from '../helpers/listen.ts';

const PER_CALLER = 3;

describe(`open listeners per caller (${testEngine})`, () => {
  const app = useTestApp({ LISTENERS_PER_CALLER: String(PER_CALLER) });
  let project: TestProject;
  const open: { close(): unknown }[] = [];

  beforeAll(async () => {
    project = await createProject(app, app.admin);
  });
  afterAll(async () => {
    for (const connection of open) await connection.close();
  });

  const socketUrl = () => listenUrl(app, 'production', `?project=${project.slug}`);
  const streamUrl = () => `${app.url}/api/v1/data/listen/production?project=${project.slug}&query=${encodeURIComponent('*[_type == "post"]')}`;

  async function socket(token: string): Promise<ListenSocket> {
    const opened = await openListenSocket(socketUrl(), { authorization: `Bearer ${token}` });
    open.push(opened);
    await opened.subscribe({ query: '*[_type == "post"]' });
    return opened;
  }

  async function stream(token: string): Promise<EventStream> {
    const opened = await openEventStream(streamUrl(), { authorization: `Bearer ${token}` });
    open.push(opened);
    await opened.next('welcome');
    return opened;
  }

  it('refuses a caller more WebSockets and event streams than LISTENERS_PER_CALLER with 429, and takes one again once one closes', async () => {
    const token = (await createApiToken(app, app.admin, project.slug, { permissions: ['read'] })).token;
    const sockets = [await socket(token), await socket(token)];
    const first = await stream(token);

    const refused = await refusedUpgrade(socketUrl(), { authorization: `Bearer ${token}` });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    expect(refused.body.message).toContain('LISTENERS_PER_CALLER');
    const refusedStream = await httpRequest(app.url, 'GET', streamUrl().slice(app.url.length), { token, headers: { accept: 'text/event-stream' } });
    expect(expectErrorBody(refusedStream, 429).message).toContain(`at most ${PER_CALLER}`);

    // Another caller has slots of its own.
    const other = (await createApiToken(app, app.admin, project.slug, { permissions: ['read'] })).token;
    await socket(other);

    // A closed WebSocket gives its slot back, and so does an event stream the client left.
    await sockets[0]!.close();
    const again = await eventually(async () => openListenSocket(socketUrl(), { authorization: `Bearer ${token}` }).catch(() => undefined));
    open.push(again);
    first.close();
    await sockets[1]!.close();
    await eventually(async () => (await stream(token).catch(() => undefined)) && true);
    await eventually(async () => (await stream(token).catch(() => undefined)) && true);
  });

  it('counts an authorized presence socket as one of its caller\'s listeners, and refuses one more with 4029', async () => {
    const token = (await createApiToken(app, app.admin, project.slug, { permissions: ['read'] })).token;
    const url = presenceUrl(app, project.slug);
    const sockets = await Promise.all(Array.from({ length: PER_CALLER }, () => socket(token)));
    const refused = await PresenceClient.open(url);
    expect((await refused.call('authorization', { authorization: `Bearer ${token}` })).error).toMatchObject({ code: 4029, message: expect.stringContaining('LISTENERS_PER_CALLER') });
    expect((await refused.closed).code).toBe(4029);

    await sockets[0]!.close();
    const presence = await eventually(async () => PresenceClient.connect(url, token).catch(() => undefined));
    // The presence socket holds the slot the listener gave back.
    expect((await refusedUpgrade(socketUrl(), { authorization: `Bearer ${token}` })).status).toBe(429);
    await presence.close();
    open.push(await eventually(async () => openListenSocket(socketUrl(), { authorization: `Bearer ${token}` }).catch(() => undefined)));
  });

  it('holds no slot for a request refused before its stream starts (a filter that does not compile)', async () => {
    const token = (await createApiToken(app, app.admin, project.slug, { permissions: ['read'] })).token;
    for (let i = 0; i < PER_CALLER + 2; i++) {
      const bad = await httpRequest(app.url, 'GET', `/api/v1/data/listen/production?project=${project.slug}&query=${encodeURIComponent('*[')}`, { token, headers: { accept: 'text/event-stream' } });
      expect(bad.status).toBe(400);
    }
    for (let i = 0; i < PER_CALLER; i++) await stream(token);
  });
});

describe(`listeners whose filter costs too much (${testEngine})`, () => {
  const app = useTestApp({ QUERY_SLICE_MS: '20' });

  it('closes the listeners of a filter that computes past QUERY_SLICE_MS on one document, and serves the others', async () => {
    const project = await createProject(app, app.admin);
    const costly = `*[_type == "page" && count([${Array.from({ length: 300 }, () => 'string::split(body, "")[1]').join(', ')}]) > 0]`;
    const socketUrl = listenUrl(app, 'production', `?project=${project.slug}`);
    const headers = { authorization: `Bearer ${app.admin}` };
    const costlySocket = await openListenSocket(socketUrl, headers);
    await costlySocket.subscribe({ query: costly });
    const costlyStream = await openEventStream(`${app.url}/api/v1/data/listen/production?project=${project.slug}&query=${encodeURIComponent(costly)}`, headers);
    await costlyStream.next('welcome');
    const cheap = await openListenSocket(socketUrl, headers);
    await cheap.subscribe({ query: '*[_type == "page"]' });

    const body = 'ab '.repeat(100_000);
    const written = await httpRequest<{ transactionId: string }>(app.url, 'POST', `/api/v1/data/mutate/production`, {
      token: app.admin,
      headers: { 'x-project': project.slug },
      body: { mutations: [{ create: { _id: 'page-1', _type: 'page', body } }] },
    });
    expect(written.status).toBe(200);

    expect(await cheap.next('mutation')).toMatchObject({ documentId: 'page-1', transactionId: written.body.transactionId });
    const error = await costlySocket.next('error');
    expect(error).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(error.message).toContain('QUERY_SLICE_MS');
    expect(await costlySocket.closed).toMatchObject({ code: 1008 });
    const disconnect = await costlyStream.next('disconnect');
    expect(disconnect.json).toMatchObject({ statusCode: 400 });
    expect(String(disconnect.json.reason)).toContain('QUERY_SLICE_MS');
    await costlyStream.ended;
    await cheap.close();
  });
});
