import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type MutationEvent } from '@sanity/client';
import { applyPatch } from 'mendoza';
import { expectErrorBody, useTestApp } from '../helpers/test-app.ts';
import { createProject, type TestProject } from '../helpers/fixtures.ts';
import { dataClient, ok, type MutateBody } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';
import { openEventStream, type EventStream } from '../helpers/listen.ts';

type Event = Record<string, unknown> & {
  documentId: string;
  transactionId: string;
  transactionTotalEvents: number;
  transactionCurrentEvent: number;
};

/**
 * Listener events as Sanity Studio's mutator needs them (docs/decisions.md "Real-time"): a
 * transaction's events counted per listener, revisions that chain, the mutations that were sent,
 * timestamps equal to `_updatedAt`, and mendoza effects when asked for.
 */
describe(`listener events of transactions, as Studio's mutator reads them (${testEngine})`, () => {
  const app = useTestApp();
  let project: TestProject;
  let data: ReturnType<typeof dataClient>;
  const streams: EventStream[] = [];

  beforeAll(async () => {
    project = await createProject(app, app.admin);
    data = dataClient(app, app.admin, project.slug);
  });
  afterAll(async () => {
    for (const stream of streams) stream.close();
  });

  /** An SSE listener with Sanity's query-string options; resolves after its welcome. */
  async function listen(query: string, params: Record<string, unknown> = {}, options = ''): Promise<EventStream> {
    const encoded = Object.entries(params).map(([name, value]) => `&%24${name}=${encodeURIComponent(JSON.stringify(value))}`).join('');
    const url = `${app.url}/api/v1/data/listen/production?project=${project.slug}&query=${encodeURIComponent(query)}${encoded}${options}`;
    const stream = await openEventStream(url, { authorization: `Bearer ${app.admin}` });
    streams.push(stream);
    expect(stream.status).toBe(200);
    await stream.next('welcome');
    return stream;
  }

  const next = async (stream: EventStream) => (await stream.next('mutation')).json as Event;
  const take = (stream: EventStream, count: number) => Promise.all(Array.from({ length: count }, () => next(stream)));

  const mutate = (mutations: unknown[], transactionId?: string) =>
    app.request<MutateBody>('POST', `/api/v1/data/mutate/production`, {
      token: app.admin,
      headers: { 'x-project': project.slug },
      body: { mutations, ...(transactionId ? { transactionId } : {}) },
    });

  const withoutRev = (document: unknown) => {
    if (document === null || document === undefined) return null;
    const { _rev: _ignored, ...rest } = document as Record<string, unknown>;
    return rest;
  };

  it('counts a mutation\'s events per listener, after its filter, in order from 0, with the mutations sent for each document', async () => {
    const items = await listen('*[_type == "item"]');
    const everything = await listen('*[_id in $ids]', { ids: ['i-1', 'i-2', 'i-3'] });
    const one = await listen('*[_id == "i-2"]');
    const sent = [
      { create: { _id: 'i-1', _type: 'item', n: 1 } },
      { createIfNotExists: { _id: 'i-2', _type: 'item', n: 2 } },
      { create: { _id: 'i-3', _type: 'other' } },
      { patch: { id: 'i-2', inc: { n: 5 }, set: { label: 'two' } } },
    ];
    const { transactionId } = ok(await mutate(sent, 'client-chosen-tx-1'));
    expect(transactionId).toBe('client-chosen-tx-1');

    const itemEvents = await take(items, 2);
    expect(itemEvents.map((event) => [event.documentId, event.transactionTotalEvents, event.transactionCurrentEvent])).toEqual([
      ['i-1', 2, 0],
      ['i-2', 2, 1],
    ]);
    const allEvents = await take(everything, 3);
    expect(allEvents.map((event) => [event.documentId, event.transactionTotalEvents, event.transactionCurrentEvent])).toEqual([
      ['i-1', 3, 0],
      ['i-2', 3, 1],
      ['i-3', 3, 2],
    ]);
    const oneEvent = await next(one);
    expect([oneEvent.documentId, oneEvent.transactionTotalEvents, oneEvent.transactionCurrentEvent]).toEqual(['i-2', 1, 0]);

    for (const event of [...itemEvents, ...allEvents, oneEvent]) {
      expect(event.transactionId).toBe('client-chosen-tx-1');
      expect(event.resultRev).toBe('client-chosen-tx-1');
      expect(event.eventId).toBe(`client-chosen-tx-1#${event.documentId}`);
      expect(event.visibility).toBe('query');
      // Created here: no revision before, and the field is left out rather than null.
      expect(event).not.toHaveProperty('previousRev');
    }
    // The mutations of each document, as sent and in order; none of another document's.
    expect(allEvents.map((event) => event.mutations)).toEqual([[sent[0]], [sent[1], sent[3]], [sent[2]]]);
    expect(oneEvent.mutations).toEqual([sent[1], sent[3]]);
  });

  it('chains previousRev to resultRev across edits, ends with a delete that has a resultRev, and stamps each with _updatedAt', async () => {
    const stream = await listen('*[_id == "chain"]', {}, '&includeResult=true');
    const revs: string[] = [];
    const edits = [
      [{ create: { _id: 'chain', _type: 'note', n: 0 } }],
      [{ patch: { id: 'chain', inc: { n: 1 } } }],
      [{ patch: { id: 'chain', set: { title: 'third' } } }],
    ];
    for (const mutations of edits) {
      revs.push(ok(await mutate(mutations)).transactionId);
      const event = await next(stream);
      const document = ok(await data.doc('chain'));
      expect(event.resultRev).toBe(document._rev);
      expect(event.timestamp).toBe(document._updatedAt);
      expect(event.result).toEqual(document);
      expect(event.mutations).toEqual(mutations);
      expect([event.transactionTotalEvents, event.transactionCurrentEvent]).toEqual([1, 0]);
    }
    const deleted = ok(await mutate([{ delete: { id: 'chain' } }]));
    const deletion = await next(stream);
    expect(deletion).toMatchObject({ transition: 'disappear', previousRev: revs[2], resultRev: deleted.transactionId, mutations: [{ delete: { id: 'chain' } }] });
    expect(deletion).not.toHaveProperty('result');
    expect(typeof deletion.timestamp).toBe('string');
  });

  it('counts a publish as two events for a listener on both ids: the published document appears, the draft goes with a resultRev', async () => {
    const pair = await listen('*[_id in $ids]', { ids: ['pub-1', 'drafts.pub-1'] }, '&includeAllVersions=true&effectFormat=mendoza');
    const draftOnly = await listen('*[_id == "drafts.pub-1"]');
    ok(await mutate([{ create: { _id: 'drafts.pub-1', _type: 'post', title: 'Draft' } }]));
    expect((await next(pair)).transition).toBe('appear');
    expect((await next(draftOnly)).transition).toBe('appear');
    const draftBefore = ok(await data.doc('drafts.pub-1'));
    const published = ok(await data.publish('pub-1'));

    const [appeared, removed] = await take(pair, 2);
    expect(appeared).toMatchObject({ documentId: 'pub-1', transition: 'appear', transactionTotalEvents: 2, transactionCurrentEvent: 0 });
    expect(removed).toMatchObject({ documentId: 'drafts.pub-1', transition: 'disappear', transactionTotalEvents: 2, transactionCurrentEvent: 1 });
    expect(appeared!.transactionId).toBe(published._rev);
    expect(removed!.transactionId).toBe(published._rev);
    expect(appeared!.resultRev).toBe(published._rev);
    expect(appeared).not.toHaveProperty('previousRev');
    expect(removed!.previousRev).toBe(draftBefore._rev);
    expect(removed!.resultRev).toBe(published._rev);
    // Not sent as mutations: the equivalent ones.
    expect(appeared!.mutations).toEqual([{ createOrReplace: published }]);
    expect(removed!.mutations).toEqual([{ delete: { id: 'drafts.pub-1' } }]);
    expect(appeared!.timestamp).toBe(published._updatedAt);
    expect(removed!.timestamp).toBe(published._updatedAt);
    // Effects turn the document before into the one after (without _rev), and back.
    expect(applyPatch(null, (appeared!.effects as { apply: unknown[] }).apply as never)).toEqual(withoutRev(published));
    expect(applyPatch(withoutRev(published), (appeared!.effects as { revert: unknown[] }).revert as never)).toBeNull();
    expect(applyPatch(withoutRev(draftBefore), (removed!.effects as { apply: unknown[] }).apply as never)).toBeNull();
    expect(applyPatch(null, (removed!.effects as { revert: unknown[] }).revert as never)).toEqual(withoutRev(draftBefore));

    const draftEvent = await next(draftOnly);
    expect(draftEvent).toMatchObject({ documentId: 'drafts.pub-1', transactionTotalEvents: 1, transactionCurrentEvent: 0, resultRev: published._rev });
    expect(draftEvent).not.toHaveProperty('effects');
  });

  it('carries effects exactly when effectFormat=mendoza is asked for, and they apply to the documents without _rev', async () => {
    const withEffects = await listen('*[_type == "fx"]', {}, '&effectFormat=mendoza&includeResult=true&includePreviousRevision=true');
    const without = await listen('*[_type == "fx"]', {}, '&includeResult=true');
    ok(await mutate([{ create: { _id: 'fx-1', _type: 'fx', title: 'Hello', tags: ['a', 'b'], body: { text: 'one' } } }]));
    ok(await mutate([{ patch: { id: 'fx-1', set: { title: 'Hello, world', 'body.text': 'two' }, insert: { after: 'tags[-1]', items: ['c'] } } }]));
    ok(await mutate([{ patch: { id: 'fx-1', unset: ['tags[0]'], set: { 'body.more': [1, 2] } } }]));
    ok(await mutate([{ delete: { id: 'fx-1' } }]));
    for (const event of await take(withEffects, 4)) {
      const effects = event.effects as { apply: unknown[]; revert: unknown[] };
      const before = withoutRev(event.previous);
      const after = withoutRev(event.result);
      expect(applyPatch(before, effects.apply as never)).toEqual(after);
      expect(applyPatch(after, effects.revert as never)).toEqual(before);
    }
    for (const event of await take(without, 4)) expect(event).not.toHaveProperty('effects');
  });

  it('counts an import of more changes than are read or kept at once as one transaction, in order', async () => {
    const all = await listen('*[_type == "bulk"]');
    const few = await listen('*[_type == "bulk" && n < 3]');
    const count = 1_234;
    const lines = Array.from({ length: count }, (_, n) => JSON.stringify({ _id: `bulk-${n}`, _type: 'bulk', n })).join('\n');
    const imported = await app.request('POST', `/api/v1/data/import/production?project=${project.slug}`, {
      token: app.admin,
      rawBody: lines,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(imported.status).toBe(200);
    const events = await take(all, count);
    expect(events.map((event) => event.transactionCurrentEvent)).toEqual(Array.from({ length: count }, (_, n) => n));
    expect(new Set(events.map((event) => event.transactionTotalEvents))).toEqual(new Set([count]));
    expect(new Set(events.map((event) => event.transactionId)).size).toBe(1);
    expect(events[7]!.mutations).toEqual([{ createOrReplace: expect.objectContaining({ _id: 'bulk-7', n: 7, _rev: events[7]!.transactionId }) }]);
    const fewEvents = await take(few, 3);
    expect(fewEvents.map((event) => [event.documentId, event.transactionTotalEvents, event.transactionCurrentEvent])).toEqual([
      ['bulk-0', 3, 0],
      ['bulk-1', 3, 1],
      ['bulk-2', 3, 2],
    ]);
  });

  it('accepts the listen options Studio sends, starts every stream with welcome, and refuses an unknown effect format', async () => {
    const options = [
      'includeAllVersions=true&visibility=query&effectFormat=mendoza&includeMutations=false&tag=sanity.studio.preview.global',
      'includeAllVersions=true&visibility=transaction&includeMutations=false&tag=preview.observe-document-set.listen',
      'includeResult=true&includePreviousRevision=true&lastEventId=abc%23def&enableResume=true',
    ];
    const streams = [];
    for (const option of options) {
      const stream = await listen('*[_type == "opt"]', {}, `&${option}`);
      expect(stream.events.all).toEqual([]);
      streams.push(stream);
    }
    ok(await mutate([{ create: { _id: 'opt-1', _type: 'opt' } }]));
    const [preview, documentSet, full] = await Promise.all(streams.map(next));
    expect(preview).toHaveProperty('effects');
    expect(preview).not.toHaveProperty('mutations');
    expect(documentSet).not.toHaveProperty('effects');
    expect(documentSet).not.toHaveProperty('mutations');
    expect(full).toMatchObject({ result: { _id: 'opt-1' }, previous: null, mutations: [{ create: { _id: 'opt-1', _type: 'opt' } }] });

    const raw = await openEventStream(`${app.url}/api/v1/data/listen/production?project=${project.slug}&query=*`, { authorization: `Bearer ${app.admin}` });
    streams.push(raw);
    expect((await raw.events.take()).event).toBe('welcome');
    raw.close();

    const refused = await app.request('GET', `/api/v1/data/listen/production?project=${project.slug}&query=*&effectFormat=json`, { token: app.admin });
    expect(expectErrorBody(refused, 400).message).toContain('effectFormat');
  });

  it('gives @sanity/client\'s listen() events it parses, with what Studio reads', async () => {
    const client = createClient({
      projectId: project.id,
      dataset: 'production',
      apiHost: `${app.url}/api`,
      useProjectHostname: false,
      apiVersion: '2025-02-19',
      useCdn: false,
      token: app.admin,
    });
    const events: MutationEvent[] = [];
    let welcomed = false;
    const subscription = client
      .listen('*[_id in $ids]', { ids: ['sc-1', 'drafts.sc-1'] }, { includeResult: false, effectFormat: 'mendoza', includeAllVersions: true, events: ['welcome', 'mutation'] })
      .subscribe((event) => {
        if (event.type === 'welcome') welcomed = true;
        else if (event.type === 'mutation') events.push(event);
      });
    try {
      const waitFor = async (done: () => boolean) => {
        const deadline = Date.now() + 10_000;
        while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      };
      await waitFor(() => welcomed);
      const draft = await client.create({ _id: 'drafts.sc-1', _type: 'post', title: 'T' });
      // Studio's publish: a create of the published id and a delete of the draft, in one transaction.
      await client
        .transaction()
        .create({ ...draft, _id: 'sc-1' })
        .delete('drafts.sc-1')
        .commit({ transactionId: 'studio-publish-1' });
      await waitFor(() => events.length >= 3);
      expect(events.map((event) => [event.documentId, event.transition, event.transactionTotalEvents, event.transactionCurrentEvent])).toEqual([
        ['drafts.sc-1', 'appear', 1, 0],
        ['sc-1', 'appear', 2, 0],
        ['drafts.sc-1', 'disappear', 2, 1],
      ]);
      const [created, appeared, removed] = events as [MutationEvent, MutationEvent, MutationEvent];
      expect(created.previousRev).toBeUndefined();
      expect(appeared.transactionId).toBe('studio-publish-1');
      expect(removed).toMatchObject({ previousRev: created.resultRev, resultRev: 'studio-publish-1', mutations: [{ delete: { id: 'drafts.sc-1' } }] });
      expect(appeared.mutations).toEqual([{ create: { ...draft, _id: 'sc-1' } }]);
      expect(applyPatch(null, appeared.effects!.apply as never)).toMatchObject({ _id: 'sc-1', title: 'T', _updatedAt: appeared.timestamp });
    } finally {
      subscription.unsubscribe();
    }
  });
});
