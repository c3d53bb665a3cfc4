import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startTestApp, useTestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject, type TestProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';
import { eventually } from '../helpers/eventually.ts';
import { openEventStream, type EventStream } from '../helpers/listen.ts';

describe(`real-time listeners over Server-Sent Events, in Sanity's shape (${testEngine})`, () => {
  const app = useTestApp();
  let project: TestProject;
  let data: ReturnType<typeof dataClient>;
  const streams: EventStream[] = [];

  beforeAll(async () => {
    project = await createProject(app, app.admin, ['production', 'staging']);
    data = dataClient(app, app.admin, project.slug);
  });
  afterAll(async () => {
    for (const stream of streams) stream.close();
  });

  const path = (query: string, dataset = 'production') => `/api/v1/data/listen/${dataset}?project=${project.slug}&${query}`;

  async function listen(query: string, headers: Record<string, string> = { authorization: `Bearer ${app.admin}` }): Promise<EventStream> {
    const stream = await openEventStream(`${app.url}${path(query)}`, headers);
    streams.push(stream);
    return stream;
  }

  it('streams welcome and mutation events as Sanity does: SSE id = event id, $params as JSON, options', async () => {
    const query = encodeURIComponent('*[_type == $type]');
    const stream = await listen(`query=${query}&%24type=${encodeURIComponent('"note"')}&includeResult=true`);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers.get('x-ratelimit-limit')).not.toBeNull();
    const welcome = await stream.next('welcome');
    expect(welcome.json).toEqual({ listenerName: expect.any(String), listenerId: welcome.json.listenerName });

    const created = ok(await data.mutate([{ create: { _id: 'note-1', _type: 'note', text: 'hi' } }, { create: { _type: 'other' } }]));
    const event = await stream.next('mutation');
    expect(event.id).toBe(`${created.transactionId}#note-1`);
    expect(event.json).toMatchObject({
      eventId: `${created.transactionId}#note-1`,
      documentId: 'note-1',
      transactionId: created.transactionId,
      transition: 'appear',
      identity: expect.any(String),
      resultRev: created.transactionId,
      visibility: 'query',
      result: { _id: 'note-1', text: 'hi' },
      mutations: [{ create: { _id: 'note-1', _type: 'note', text: 'hi' } }],
    });
    expect(event.json.type).toBeUndefined();

    await data.mutate([{ delete: { id: 'note-1' } }]);
    const deleted = await stream.next('mutation');
    expect(deleted.json).toMatchObject({ documentId: 'note-1', transition: 'disappear', previousRev: created.transactionId, mutations: [{ delete: { id: 'note-1' } }] });
    expect(deleted.json.result).toBeUndefined();
  });

  it('leaves out mutations and includes the previous revision when asked', async () => {
    const stream = await listen(`query=${encodeURIComponent('*[_type == "memo"]')}&includeMutations=false&includePreviousRevision=true`);
    await stream.next('welcome');
    await data.mutate([{ create: { _id: 'memo-1', _type: 'memo', n: 1 } }]);
    expect((await stream.next('mutation')).json.previous).toBeNull();
    await data.mutate([{ patch: { id: 'memo-1', set: { n: 2 } } }]);
    const update = (await stream.next('mutation')).json;
    expect(update).toMatchObject({ transition: 'update', previous: { n: 1 } });
    expect(update.mutations).toBeUndefined();
    expect(update.result).toBeUndefined();
  });

  it('sends comment lines as keep-alives', async () => {
    app.services.realtime.settings.heartbeatMs = 50;
    try {
      const stream = await listen(`query=${encodeURIComponent('*')}`);
      await stream.next('welcome');
      await eventually(() => (stream.comments() >= 3 ? true : undefined));
    } finally {
      app.services.realtime.settings.heartbeatMs = 25_000;
    }
  });

  it('answers bad requests with the standard error body before streaming', async () => {
    const get = (query: string, token: string | null = app.admin, dataset = 'production') =>
      app.request('GET', path(query, dataset), { ...(token ? { token } : {}), headers: { accept: 'text/event-stream' } });
    expect(expectErrorBody(await get(''), 400).message).toContain('query');
    expect(expectErrorBody(await get(`query=${encodeURIComponent('*[_type == ')}`), 400).message).toMatch(/syntax error/);
    expect(expectErrorBody(await get(`query=${encodeURIComponent('*[_type == $t]')}`), 400).message).toContain('$t');
    expect(expectErrorBody(await get(`query=*&%24t=not-json`), 400).message).toContain('$t');
    expect(expectErrorBody(await get(`query=${encodeURIComponent('count(*)')}`), 400).message).toContain('filter');
    expect(expectErrorBody(await get('query=*&includeResult=maybe'), 400).message).toContain('includeResult');
    expectErrorBody(await get('query=*', null), 401);
    expectErrorBody(await get('query=*', 'svc_nope'), 401);
    expectErrorBody(await get('query=*', app.admin, 'unknown'), 404);
    const staging = await createApiToken(app, app.admin, project.slug, { dataset: 'staging' });
    expectErrorBody(await get('query=*', staging.token), 403);
  });

  it('takes the credential as access_token, for browsers', async () => {
    const stream = await listen(`query=${encodeURIComponent('*[_type == "browser"]')}&access_token=${encodeURIComponent(app.admin)}`, {});
    await stream.next('welcome');
    await data.mutate([{ create: { _type: 'browser' } }]);
    expect((await stream.next('mutation')).json.transition).toBe('appear');
  });

  it('documents both transports in the OpenAPI document', async () => {
    const openapi = await app.request<{ paths: Record<string, { get?: { description?: string; responses?: Record<string, { content?: Record<string, unknown> }> } }> }>(
      'GET',
      '/api/v1/openapi.json',
    );
    const operation = openapi.body.paths['/api/v1/data/listen/{dataset}']?.get;
    expect(operation?.description).toMatch(/WebSocket/);
    expect(operation?.description).toMatch(/Server-Sent Events/);
    expect(Object.keys(operation?.responses?.['200']?.content ?? {})).toEqual(['text/event-stream']);
  });

  it('sends disconnect with the reason when access ends, and reconnect when the server stops', async () => {
    const token = await createApiToken(app, app.admin, project.slug);
    const revoked = await listen('query=*', { authorization: `Bearer ${token.token}` });
    await revoked.next('welcome');
    await app.request('DELETE', `/api/v1/tokens/${project.slug}/${token.id}`, { token: app.admin });
    await app.services.realtime.recheck();
    expect((await revoked.next('disconnect')).json).toMatchObject({ reason: expect.stringContaining('access ended'), statusCode: 401, error: 'Unauthorized' });
    await revoked.ended;

    const other = await startTestApp({}, { db: app.db });
    const stream = await openEventStream(`${other.url}${path('query=*')}`, { authorization: `Bearer ${app.admin}` });
    await stream.next('welcome');
    await other.close({ keepDatabase: true });
    expect((await stream.next('reconnect')).json).toMatchObject({ reason: expect.any(String) });
    await stream.ended;
  });
});
