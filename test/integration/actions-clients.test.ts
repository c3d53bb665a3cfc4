import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type SanityClient } from '@sanity/client';
import { applyPatch } from 'mendoza';
import { useTestApp } from '../helpers/test-app.ts';
import { createProject, type TestProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';
import { openEventStream, type EventStream } from '../helpers/listen.ts';

type Event = Record<string, unknown> & {
  documentId: string;
  transactionId: string;
  transition: string;
  mutations: unknown[];
  effects: { apply: unknown[]; revert: unknown[] };
  transactionTotalEvents: number;
  transactionCurrentEvent: number;
};

const A = 'sanity.action.document.';

/**
 * The Actions API as its clients see it: listener events describing what each action did to each
 * document (Studio replays their mutations), and @sanity/client's action() and version helpers
 * driving the endpoint on the API version Studio uses.
 */
describe(`actions seen by listeners and driven by @sanity/client (${testEngine})`, () => {
  const app = useTestApp();
  let project: TestProject;
  let data: ReturnType<typeof dataClient>;
  let client: SanityClient;
  const streams: EventStream[] = [];

  beforeAll(async () => {
    project = await createProject(app, app.admin);
    data = dataClient(app, app.admin, project.slug);
    client = createClient({
      projectId: project.id,
      dataset: 'production',
      apiHost: `${app.url}/api/p/${project.slug}`,
      useProjectHostname: false,
      apiVersion: '2025-02-19',
      useCdn: false,
      token: app.admin,
    });
  });
  afterAll(async () => {
    for (const stream of streams) stream.close();
  });

  /** An SSE listener on the ids given (mutations included, as on SSE by default, and mendoza effects). */
  async function listen(ids: string[]): Promise<EventStream> {
    const url = `${app.url}/api/v1/data/listen/production?project=${project.slug}&query=${encodeURIComponent('*[_id in $ids]')}&%24ids=${encodeURIComponent(JSON.stringify(ids))}&effectFormat=mendoza`;
    const stream = await openEventStream(url, { authorization: `Bearer ${app.admin}` });
    streams.push(stream);
    await stream.next('welcome');
    return stream;
  }
  const next = async (stream: EventStream) => (await stream.next('mutation')).json as Event;
  const act = (actions: unknown[], transactionId?: string) =>
    app.request<{ transactionId: string }>('POST', '/api/v1/data/actions/production', {
      token: app.admin,
      headers: { 'x-project': project.slug },
      body: { actions, ...(transactionId ? { transactionId } : {}) },
    });
  const withoutRev = (document: Record<string, unknown> | null) => {
    if (!document) return null;
    const { _rev: _ignored, ...rest } = document;
    return rest;
  };

  it("describes an edit that makes the draft as createIfNotExists of the published content and the patch, with mendoza effects", async () => {
    ok(await data.mutate([{ create: { _id: 'l1', _type: 'post', title: 'Live', n: 1 } }]));
    const published = ok(await data.doc('l1'));
    const stream = await listen(['l1', 'drafts.l1']);
    const patch = { set: { title: 'Edited' }, inc: { n: 1 } };
    const { transactionId } = ok(await act([{ actionType: `${A}edit`, draftId: 'drafts.l1', publishedId: 'l1', patch }]));
    const event = await next(stream);
    const draft = ok(await data.doc('drafts.l1'));
    expect(event).toMatchObject({ documentId: 'drafts.l1', transactionId, transition: 'appear', resultRev: transactionId, transactionTotalEvents: 1, transactionCurrentEvent: 0 });
    expect(event).not.toHaveProperty('previousRev');
    expect(event.mutations).toEqual([
      { createIfNotExists: { ...published, _id: 'drafts.l1', _rev: transactionId, _updatedAt: draft._updatedAt } },
      { patch: { id: 'drafts.l1', ...patch } },
    ]);
    expect(applyPatch(null, event.effects.apply as never)).toEqual(withoutRev(draft));
  });

  it('sends one event per document of a multi-action request, counted per transaction: the draft patched then deleted, the published one written', async () => {
    ok(await data.mutate([{ create: { _id: 'l2', _type: 'post', v: 1 } }, { create: { _id: 'drafts.l2', _type: 'post', v: 2 } }]));
    const draftBefore = ok(await data.doc('drafts.l2'));
    const publishedBefore = ok(await data.doc('l2'));
    const stream = await listen(['l2', 'drafts.l2']);
    const actions = [
      { actionType: `${A}edit`, draftId: 'drafts.l2', publishedId: 'l2', patch: { set: { v: 3 } } },
      { actionType: `${A}publish`, draftId: 'drafts.l2', publishedId: 'l2', ifPublishedRevisionId: publishedBefore._rev },
    ];
    ok(await act(actions, 'actions-listen-1'));
    const events = [await next(stream), await next(stream)].sort((a, b) => a.transactionCurrentEvent - b.transactionCurrentEvent);
    const after = ok(await data.doc('l2'));
    expect(events.map((event) => [event.transactionId, event.transactionTotalEvents, event.transactionCurrentEvent])).toEqual([
      ['actions-listen-1', 2, 0],
      ['actions-listen-1', 2, 1],
    ]);
    const draftEvent = events.find((event) => event.documentId === 'drafts.l2')!;
    const publishedEvent = events.find((event) => event.documentId === 'l2')!;
    expect(draftEvent).toMatchObject({ transition: 'disappear', previousRev: draftBefore._rev, resultRev: 'actions-listen-1' });
    expect(draftEvent.mutations).toEqual([{ patch: { id: 'drafts.l2', set: { v: 3 } } }, { delete: { id: 'drafts.l2' } }]);
    expect(publishedEvent).toMatchObject({ transition: 'update', previousRev: publishedBefore._rev, resultRev: 'actions-listen-1' });
    expect(publishedEvent.mutations).toEqual([{ createOrReplace: after }]);
    expect(applyPatch(withoutRev(publishedBefore), publishedEvent.effects.apply as never)).toEqual(withoutRev(after));
    expect(applyPatch(withoutRev(draftBefore), draftEvent.effects.apply as never)).toBeNull();
  });

  it('describes unpublish, discard and delete by their results: delete, and createOrReplace of a draft made from the published document', async () => {
    ok(await data.mutate([{ create: { _id: 'l3', _type: 'post', title: 'Live' } }]));
    const stream = await listen(['l3', 'drafts.l3']);
    ok(await act([{ actionType: `${A}unpublish`, draftId: 'drafts.l3', publishedId: 'l3' }]));
    const events = [await next(stream), await next(stream)];
    const draft = ok(await data.doc('drafts.l3'));
    expect(Object.fromEntries(events.map((event) => [event.documentId, event.mutations]))).toEqual({
      l3: [{ delete: { id: 'l3' } }],
      'drafts.l3': [{ createOrReplace: draft }],
    });
    ok(await act([{ actionType: `${A}discard`, draftId: 'drafts.l3' }]));
    expect((await next(stream)).mutations).toEqual([{ delete: { id: 'drafts.l3' } }]);
  });

  it("drives the endpoint through @sanity/client's action(): single and multiple actions, transactionId and dryRun", async () => {
    const created = await client.action({ actionType: `${A}create`, publishedId: 'c1', attributes: { _id: 'drafts.c1', _type: 'post', title: 'From the client' }, ifExists: 'fail' });
    expect(created).toEqual({ transactionId: expect.any(String) });
    expect(await client.getDocument('drafts.c1')).toMatchObject({ title: 'From the client', _rev: created.transactionId });

    const dry = await client.action({ actionType: `${A}publish`, draftId: 'drafts.c1', publishedId: 'c1' }, { dryRun: true });
    expect(dry.transactionId).toEqual(expect.any(String));
    expect(await client.getDocument('c1')).toBeUndefined();

    const result = await client.action(
      [
        { actionType: `${A}edit`, draftId: 'drafts.c1', publishedId: 'c1', patch: { set: { title: 'Edited' } } },
        { actionType: `${A}publish`, draftId: 'drafts.c1', publishedId: 'c1' },
      ],
      { transactionId: 'client-actions-1', skipCrossDatasetReferenceValidation: true },
    );
    expect(result).toEqual({ transactionId: 'client-actions-1' });
    expect(await client.getDocument('c1')).toMatchObject({ title: 'Edited', _rev: 'client-actions-1' });
    expect(await client.getDocument('drafts.c1')).toBeUndefined();
  });

  it('surfaces failed actions as client errors with their status and message', async () => {
    await expect(client.action({ actionType: `${A}publish`, draftId: 'drafts.none', publishedId: 'none' })).rejects.toMatchObject({
      statusCode: 404,
      message: expect.stringContaining('Draft "drafts.none" not found'),
    });
    await client.action({ actionType: `${A}create`, publishedId: 'c2', attributes: { _id: 'drafts.c2', _type: 'post' }, ifExists: 'fail' });
    await expect(client.action({ actionType: `${A}create`, publishedId: 'c2', attributes: { _id: 'drafts.c2', _type: 'post' }, ifExists: 'fail' })).rejects.toMatchObject({
      statusCode: 409,
    });
  });

  it("creates, replaces and discards drafts with the client's version helpers", async () => {
    await client.createOrReplace({ _id: 'v1', _type: 'post', title: 'Live' });
    await client.createVersion({ publishedId: 'v1', document: { _type: 'post', title: 'Version' } });
    expect(await client.getDocument('drafts.v1')).toMatchObject({ title: 'Version' });
    await client.replaceVersion({ publishedId: 'v1', document: { _type: 'post', title: 'Replaced' } });
    expect(await client.getDocument('drafts.v1')).toMatchObject({ title: 'Replaced' });
    await client.discardVersion({ publishedId: 'v1' });
    expect(await client.getDocument('drafts.v1')).toBeUndefined();
    await client.createVersion({ publishedId: 'v1', baseId: 'v1' });
    expect(await client.getDocument('drafts.v1')).toMatchObject({ title: 'Live' });
  });
});
