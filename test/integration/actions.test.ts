import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, useTestApp, type ApiResponse } from '../helpers/test-app.ts';
import { createApiToken, createProject, createUser, type TestProject } from '../helpers/fixtures.ts';
import { dataClient, ok, outboxEvents } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';

type Doc = Record<string, unknown> & { _id: string; _rev: string; _createdAt: string; _updatedAt: string };
type ActionsBody = { transactionId: string; results?: { id: string; operation: string; document: Doc | null }[] };

const A = 'sanity.action.document.';

/** POST /data/actions, action by action (docs/decisions.md "Actions"). */
describe(`the Actions API (${testEngine})`, () => {
  const app = useTestApp();
  let project: TestProject;
  let data: ReturnType<typeof dataClient>;

  beforeAll(async () => {
    project = await createProject(app, app.admin, ['production', 'staging']);
    data = dataClient(app, app.admin, project.slug);
  });

  const act = (actions: unknown, extra: Record<string, unknown> = {}, token = app.admin, query = '') =>
    app.request<ActionsBody>('POST', `/api/v1/data/actions/production${query}`, {
      token,
      headers: { 'x-project': project.slug },
      body: { actions: Array.isArray(actions) ? actions : [actions], ...extra },
    });
  const doc = async (id: string): Promise<Doc | null> => {
    const response = await data.doc<Doc>(id);
    return response.status === 404 ? null : ok(response);
  };
  // Events are polled for: on PostgreSQL the outbox is read up to the oldest transaction still
  // running anywhere in the cluster (docs/decisions.md "Real-time"), which may be another test's.
  const eventsOf = async (id: string) =>
    (await outboxEvents(app)).filter((event) => event.documentId === id || event.documentId === `drafts.${id}`).map((event) => `${event.event} ${event.documentId}`);
  const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 15_000 });
  let markers = 0;
  /** Every event so far, once a write made now is readable (so that any earlier one would be too). */
  const settledEvents = async () => {
    const marker = `marker-${++markers}`;
    ok(await data.mutate([{ create: { _id: marker, _type: 'marker' } }]));
    await poll(async () => (await outboxEvents(app)).some((event) => event.documentId === marker)).toBe(true);
    return outboxEvents(app);
  };
  const create = (id: string, attributes: Record<string, unknown> = {}, ifExists?: 'fail' | 'ignore') => ({
    actionType: `${A}create`,
    publishedId: id,
    attributes: { _id: `drafts.${id}`, _type: 'post', ...attributes },
    ...(ifExists ? { ifExists } : {}),
  });
  const edit = (id: string, patch: Record<string, unknown>) => ({ actionType: `${A}edit`, draftId: `drafts.${id}`, publishedId: id, patch });
  const publish = (id: string, checks: Record<string, string> = {}) => ({ actionType: `${A}publish`, draftId: `drafts.${id}`, publishedId: id, ...checks });
  const unpublish = (id: string) => ({ actionType: `${A}unpublish`, draftId: `drafts.${id}`, publishedId: id });
  /** A published document `id` (through mutations), and its revision. */
  const published = async (id: string, fields: Record<string, unknown> = {}) => {
    ok(await data.mutate([{ create: { _id: id, _type: 'post', ...fields } }]));
    return (await doc(id))!;
  };
  const message = (response: ApiResponse, status: number) => expectErrorBody(response, status).message;

  describe('create', () => {
    it('creates the draft of a new document (document.create), with the transaction id as its _rev; Sanity answers {transactionId}', async () => {
      const body = ok(await act(create('c1', { title: 'New', _rev: 'ignored' })));
      expect(body).toEqual({ transactionId: expect.any(String) });
      expect(await doc('drafts.c1')).toMatchObject({ _id: 'drafts.c1', _type: 'post', title: 'New', _rev: body.transactionId });
      expect(await doc('c1')).toBeNull();
      await poll(() => eventsOf('c1')).toEqual(['document.create drafts.c1']);
    });

    it('takes attributes without _id as the draft; refuses another _id with 400', async () => {
      ok(await act({ actionType: `${A}create`, publishedId: 'c2', attributes: { _type: 'post' } }));
      expect(await doc('drafts.c2')).toMatchObject({ _type: 'post' });
      expect(message(await act({ ...create('c3'), attributes: { _id: 'c3', _type: 'post' } }), 400)).toMatch(/_id must be the draft id "drafts.c3"/);
      expect(message(await act({ ...create('c3'), attributes: { _id: 'drafts.c3' } }), 400)).toMatch(/_type is required/);
    });

    it('refuses an existing draft with 409 (ifExists fail, the default), leaves it as it is with ifExists ignore', async () => {
      ok(await act(create('c4', { v: 1 })));
      const before = await doc('drafts.c4');
      expect(message(await act(create('c4', { v: 2 })), 409)).toMatch(/actions\[0\] \(sanity\.action\.document\.create\): Draft "drafts.c4" already exists/);
      expectErrorBody(await act(create('c4', { v: 2 }, 'fail')), 409);
      ok(await act(create('c4', { v: 3 }, 'ignore')));
      expect(await doc('drafts.c4')).toEqual(before);
    });

    it('refuses a document that is already published with 409, whatever ifExists says', async () => {
      await published('c5');
      expect(message(await act(create('c5', {}, 'ignore')), 409)).toMatch(/already published/);
      expect(await doc('drafts.c5')).toBeNull();
    });
  });

  describe('edit', () => {
    it('patches an existing draft (document.update)', async () => {
      ok(await act(create('e1', { title: 'A', n: 1 })));
      const { transactionId } = ok(await act(edit('e1', { set: { title: 'B' }, inc: { n: 2 }, unset: ['nothing'] })));
      expect(await doc('drafts.e1')).toMatchObject({ title: 'B', n: 3, _rev: transactionId });
      await poll(() => eventsOf('e1')).toEqual(['document.create drafts.e1', 'document.update drafts.e1']);
    });

    it('makes the draft from the published document when there is none (document.create), keeping its _createdAt', async () => {
      const original = await published('e2', { title: 'Published', tags: ['a'] });
      ok(await act(edit('e2', { set: { title: 'Edited' } })));
      const draft = await doc('drafts.e2');
      expect(draft).toMatchObject({ _type: 'post', title: 'Edited', tags: ['a'], _createdAt: original._createdAt });
      expect(await doc('e2')).toEqual(original);
      await poll(() => eventsOf('e2')).toEqual(['document.create e2', 'document.create drafts.e2']);
    });

    it("writes a new revision for Studio's empty guard patch (an unset of a field that does not exist)", async () => {
      const original = await published('e3', { title: 'Same' });
      const first = ok(await act(edit('e3', { unset: ['_empty_action_guard_pseudo_field_'] })));
      expect(await doc('drafts.e3')).toMatchObject({ title: 'Same', _rev: first.transactionId, _createdAt: original._createdAt });
      const second = ok(await act(edit('e3', { unset: ['_empty_action_guard_pseudo_field_'] })));
      expect((await doc('drafts.e3'))!._rev).toBe(second.transactionId);
    });

    it('is 404 when neither the draft nor the published document exists, and nothing is written', async () => {
      expect(message(await act(edit('e4', { set: { a: 1 } })), 404)).toMatch(/neither a draft nor a published version/);
      expect(await doc('drafts.e4')).toBeNull();
    });

    it('checks ifRevisionID against the draft, or the published document it starts from (409)', async () => {
      const source = await published('e5', { n: 1 });
      expectErrorBody(await act(edit('e5', { ifRevisionID: 'stale', set: { n: 2 } })), 409);
      expect(await doc('drafts.e5')).toBeNull();
      ok(await act(edit('e5', { ifRevisionID: source._rev, set: { n: 2 } })));
      const draft = (await doc('drafts.e5'))!;
      expectErrorBody(await act(edit('e5', { ifRevisionID: source._rev, set: { n: 3 } })), 409);
      ok(await act(edit('e5', { ifRevisionID: draft._rev, set: { n: 3 } })));
      expect((await doc('drafts.e5'))!.n).toBe(3);
    });

    it('refuses a patch with an id, unknown keys, server-owned fields, or a draftId of another document (400)', async () => {
      ok(await act(create('e6')));
      expect(message(await act(edit('e6', { id: 'drafts.e6', set: { a: 1 } })), 400)).toMatch(/unknown key "id"/);
      expectErrorBody(await act(edit('e6', { bogus: {} })), 400);
      expectErrorBody(await act(edit('e6', { set: { _rev: 'x' } })), 400);
      expect(message(await act({ ...edit('e6', { set: { a: 1 } }), draftId: 'drafts.other' }), 400)).toMatch(/must be "drafts.e6"/);
      expectErrorBody(await act({ ...edit('e6', { set: { a: 1 } }), publishedId: 'drafts.e6' }), 400);
    });

    it('adds _key to array objects with autoGenerateArrayKeys', async () => {
      ok(await act(create('e7', { items: [] })));
      ok(await act(edit('e7', { set: { items: [{ v: 1 }] } }), {}, app.admin, '?autoGenerateArrayKeys=true'));
      expect((await doc('drafts.e7'))!.items).toEqual([{ _key: expect.stringMatching(/^[0-9a-f]{12}$/), v: 1 }]);
    });
  });

  describe('publish and unpublish', () => {
    it('publishes the draft (document.publish only): the published _createdAt is kept, the draft removed', async () => {
      const original = await published('p1', { v: 1 });
      ok(await act(edit('p1', { set: { v: 2 } })));
      const { transactionId } = ok(await act(publish('p1')));
      expect(await doc('p1')).toMatchObject({ v: 2, _rev: transactionId, _createdAt: original._createdAt });
      expect(await doc('drafts.p1')).toBeNull();
      await poll(async () => (await eventsOf('p1')).slice(-1)).toEqual(['document.publish p1']);
    });

    it('checks ifDraftRevisionId and ifPublishedRevisionId (409), and a draft that does not exist is 404', async () => {
      const original = await published('p2', { v: 1 });
      ok(await act(edit('p2', { set: { v: 2 } })));
      const draft = (await doc('drafts.p2'))!;
      expect(message(await act(publish('p2', { ifDraftRevisionId: 'stale' })), 409)).toMatch(/ifDraftRevisionId/);
      expect(message(await act(publish('p2', { ifPublishedRevisionId: 'stale' })), 409)).toMatch(/ifPublishedRevisionId/);
      expect(await doc('p2')).toEqual(original);
      ok(await act(publish('p2', { ifDraftRevisionId: draft._rev, ifPublishedRevisionId: original._rev })));
      expect((await doc('p2'))!.v).toBe(2);
      expect(message(await act(publish('p2')), 404)).toMatch(/Draft "drafts.p2" not found/);
    });

    it('lets exactly one of concurrent publishes with the same ifPublishedRevisionId through; the others are 409', async () => {
      const original = await published('p4', { v: 0 });
      const responses = await Promise.all(
        [1, 2, 3, 4, 5].map((v) => act([edit('p4', { set: { v } }), publish('p4', { ifPublishedRevisionId: original._rev })])),
      );
      expect(responses.map((response) => response.status).sort()).toEqual([200, 409, 409, 409, 409]);
      const winner = responses.find((response) => response.status === 200)!.body;
      expect(await doc('p4')).toMatchObject({ _rev: winner.transactionId });
      expect(await doc('drafts.p4')).toBeNull();
    });

    it('refuses ifPublishedRevisionId for a document that was never published (409)', async () => {
      ok(await act(create('p3')));
      expectErrorBody(await act(publish('p3', { ifPublishedRevisionId: 'anything' })), 409);
      ok(await act(publish('p3')));
    });

    it('unpublishes (document.unpublish only): the published content becomes the draft; a missing published document is 404', async () => {
      await published('u1', { title: 'Live' });
      ok(await act(unpublish('u1')));
      expect(await doc('u1')).toBeNull();
      expect(await doc('drafts.u1')).toMatchObject({ title: 'Live' });
      await poll(() => eventsOf('u1')).toEqual(['document.create u1', 'document.unpublish u1']);
      expect(message(await act(unpublish('u1')), 404)).toMatch(/Published document "u1" not found/);
    });

    it('keeps an existing draft as it is on unpublish', async () => {
      await published('u2', { title: 'Live' });
      ok(await act(edit('u2', { set: { title: 'Edited' } })));
      ok(await act(unpublish('u2')));
      expect(await doc('drafts.u2')).toMatchObject({ title: 'Edited' });
    });
  });

  describe('discard, delete and replaceDraft', () => {
    it('discards the draft (document.delete); a missing draft is 404', async () => {
      const original = await published('d1');
      ok(await act(edit('d1', { set: { x: 1 } })));
      ok(await act({ actionType: `${A}discard`, draftId: 'drafts.d1' }));
      expect(await doc('drafts.d1')).toBeNull();
      expect(await doc('d1')).toEqual(original);
      await poll(async () => (await eventsOf('d1')).slice(-1)).toEqual(['document.delete drafts.d1']);
      expect(message(await act({ actionType: `${A}discard`, draftId: 'drafts.d1' }), 404)).toMatch(/Draft "drafts.d1" not found/);
      expectErrorBody(await act({ actionType: `${A}discard`, draftId: 'd1' }), 400);
    });

    it('deletes the published document and the drafts it names (document.delete each)', async () => {
      await published('d2');
      ok(await act(edit('d2', { set: { x: 1 } })));
      const refused = await act({ actionType: `${A}delete`, publishedId: 'd2', includeDrafts: [] });
      expect(message(refused, 409)).toMatch(/has a draft: name "drafts.d2" in includeDrafts/);
      ok(await act({ actionType: `${A}delete`, publishedId: 'd2', includeDrafts: ['drafts.d2'] }));
      expect([await doc('d2'), await doc('drafts.d2')]).toEqual([null, null]);
      await poll(async () => (await eventsOf('d2')).slice(-2).sort()).toEqual(['document.delete d2', 'document.delete drafts.d2']);
    });

    it('deletes without includeDrafts when there is no draft; a document that is not published is 404', async () => {
      await published('d3');
      ok(await act({ actionType: `${A}delete`, publishedId: 'd3', includeDrafts: ['drafts.d3'] }));
      expect(await doc('d3')).toBeNull();
      ok(await act(create('d4')));
      expect(message(await act({ actionType: `${A}delete`, publishedId: 'd4', includeDrafts: ['drafts.d4'] }), 404)).toMatch(/discarded instead/);
      expect(await doc('drafts.d4')).not.toBeNull();
      expect(message(await act({ actionType: `${A}delete`, publishedId: 'd3', purge: true }), 400)).toMatch(/purge is not supported/);
    });

    it('replaceDraft replaces the draft whole, or makes it for a published document (keeping _createdAt); neither is 404', async () => {
      const original = await published('r1', { a: 1 });
      ok(await act({ actionType: `${A}replaceDraft`, publishedId: 'r1', attributes: { _id: 'drafts.r1', _type: 'post', b: 2 } }));
      const draft = (await doc('drafts.r1'))!;
      expect(draft).toMatchObject({ _type: 'post', b: 2, _createdAt: original._createdAt });
      expect(draft).not.toHaveProperty('a');
      ok(await act({ actionType: `${A}replaceDraft`, publishedId: 'r1', attributes: { _id: 'drafts.r1', _type: 'post', c: 3 } }));
      expect(await doc('drafts.r1')).toMatchObject({ c: 3, _createdAt: original._createdAt });
      await poll(() => eventsOf('r1')).toEqual(['document.create r1', 'document.create drafts.r1', 'document.update drafts.r1']);
      expectErrorBody(await act({ actionType: `${A}replaceDraft`, publishedId: 'r2', attributes: { _type: 'post' } }), 404);
    });
  });

  describe('version actions (drafts only: there are no content releases)', () => {
    it('version.create makes a draft from a document or as a copy of the published document, checking ifBaseRevisionId', async () => {
      const original = await published('v1', { title: 'Live' });
      const byDocument = { actionType: `${A}version.create`, publishedId: 'v1', document: { _id: 'drafts.v1', _type: 'post', title: 'Given' } };
      ok(await act(byDocument));
      expect(await doc('drafts.v1')).toMatchObject({ title: 'Given', _createdAt: original._createdAt });
      expectErrorBody(await act(byDocument), 409);
      ok(await act({ actionType: `${A}version.discard`, versionId: 'drafts.v1' }));
      const copy = { actionType: `${A}version.create`, publishedId: 'v1', baseId: 'v1', versionId: 'drafts.v1' };
      expectErrorBody(await act({ ...copy, ifBaseRevisionId: 'stale' }), 409);
      ok(await act({ ...copy, ifBaseRevisionId: original._rev }));
      expect(await doc('drafts.v1')).toMatchObject({ title: 'Live' });
      expectErrorBody(await act({ ...copy, baseId: 'v-missing', publishedId: 'v-missing', versionId: 'drafts.v-missing' }), 404);
    });

    it('version.replace needs the draft (404 without); version.discard deletes it', async () => {
      const replace = { actionType: `${A}version.replace`, document: { _id: 'drafts.v2', _type: 'post', n: 2 } };
      expectErrorBody(await act(replace), 404);
      ok(await act(create('v2', { n: 1 })));
      ok(await act(replace));
      expect((await doc('drafts.v2'))!.n).toBe(2);
      ok(await act({ actionType: `${A}version.discard`, versionId: 'drafts.v2' }));
      expect(await doc('drafts.v2')).toBeNull();
    });

    it('refuses release versions, release actions, version.unpublish and variants with 400', async () => {
      for (const action of [
        { actionType: `${A}version.discard`, versionId: 'versions.spring.v3' },
        { actionType: `${A}version.create`, publishedId: 'v3', document: { _id: 'versions.spring.v3', _type: 'post' } },
        { actionType: `${A}edit`, draftId: 'versions.spring.v3', publishedId: 'v3', patch: {} },
        { actionType: `${A}version.unpublish`, versionId: 'versions.spring.v3', publishedId: 'v3' },
        { actionType: 'sanity.action.release.create', releaseId: 'spring' },
        { actionType: `${A}variant.create`, publishedId: 'v3' },
      ]) {
        expect(message(await act(action), 400)).toMatch(/no content releases|no document variants/);
      }
    });
  });

  describe('requests', () => {
    it('runs every action of a request in one transaction: one transactionId, the _rev of all it writes', async () => {
      const body = ok(await act([create('t1', { title: 'One' }), edit('t1', { set: { title: 'Two' } }), publish('t1'), create('t2')], { transactionId: 'actions-tx-1' }));
      expect(body.transactionId).toBe('actions-tx-1');
      expect(await doc('t1')).toMatchObject({ title: 'Two', _rev: 'actions-tx-1' });
      expect(await doc('drafts.t2')).toMatchObject({ _rev: 'actions-tx-1' });
      expect(await doc('drafts.t1')).toBeNull();
      // One event per document for the whole transaction, describing where it ended.
      const events = (await settledEvents()).filter((event) => event.transactionId === 'actions-tx-1');
      expect(events.map((event) => `${event.event} ${event.documentId}`).sort()).toEqual(['document.create drafts.t2', 'document.publish t1']);
      expect(message(await act(create('t3'), { transactionId: 'actions-tx-1' }), 409)).toMatch(/already used/);
      expect(await doc('drafts.t3')).toBeNull();
    });

    it('writes nothing when any action fails: all or nothing', async () => {
      const original = await published('t4', { v: 1 });
      const failed = await act([edit('t4', { set: { v: 2 } }), create('t5'), publish('t4'), publish('t-missing')]);
      expect(message(failed, 404)).toMatch(/^actions\[3\] \(sanity\.action\.document\.publish\): Draft "drafts.t-missing" not found/);
      expect([await doc('t4'), await doc('drafts.t4'), await doc('drafts.t5')]).toEqual([original, null, null]);
      expect((await settledEvents()).filter((event) => event.documentId === 'drafts.t5' || event.documentId === 'drafts.t4')).toEqual([]);
    });

    it('dryRun answers what would change and writes nothing: no documents, revisions or events', async () => {
      const original = await published('t6', { v: 1 });
      const historyBefore = ok(await data.history('t6')).revisions.length;
      const body = ok(await act([edit('t6', { set: { v: 2 } }), publish('t6'), create('t7')], { dryRun: true }));
      // The draft made and published in the same transaction leaves nothing, as it would for real.
      expect(body.results).toEqual([
        { id: 't6', operation: 'update', document: expect.objectContaining({ _id: 't6', v: 2, _rev: body.transactionId }) },
        { id: 'drafts.t7', operation: 'create', document: expect.objectContaining({ _id: 'drafts.t7', _type: 'post' }) },
      ]);
      expect([await doc('t6'), await doc('drafts.t6'), await doc('drafts.t7')]).toEqual([original, null, null]);
      expect((await settledEvents()).filter((event) => event.transactionId === body.transactionId)).toEqual([]);
      expect(ok(await data.history('t6')).revisions.length).toBe(historyBefore);
      // The query-string form, and the errors a real request would get.
      ok(await act(create('t7'), {}, app.admin, '?dryRun=true'));
      expect(await doc('drafts.t7')).toBeNull();
      expectErrorBody(await act(publish('t-missing'), { dryRun: true }), 404);
    });

    it('refuses malformed requests with 400 and the standard body', async () => {
      const empty = await app.request('POST', '/api/v1/data/actions/production', { token: app.admin, headers: { 'x-project': project.slug }, body: { actions: [] } });
      expectErrorBody(empty, 400);
      expectErrorBody(await app.request('POST', '/api/v1/data/actions/production', { token: app.admin, headers: { 'x-project': project.slug }, body: {} }), 400);
      expect(message(await act({ actionType: `${A}frobnicate` }), 400)).toMatch(/unknown; use one of/);
      expect(message(await act({ publishedId: 'x' }), 400)).toMatch(/actionType is required/);
      expect(message(await act({ ...create('m1'), extra: true }), 400)).toMatch(/unknown field "extra"/);
      expect(message(await act({ ...create('m1'), ifExists: 'replace' }), 400)).toMatch(/ifExists/);
      expectErrorBody(await act(['not an object']), 400);
      expectErrorBody(await act(create('bad id')), 400);
      expectErrorBody(await act(create('m1'), { transactionId: 'not valid!' }), 400);
    });
  });

  describe('access', () => {
    it('needs an editor: viewers and read tokens get 403, anonymous requests 401', async () => {
      const viewer = await createUser(app, app.admin, 'viewer');
      expectErrorBody(await act(create('a1'), {}, viewer.token), 403);
      const read = await createApiToken(app, app.admin, project.slug, { permissions: ['read'] });
      expectErrorBody(await act(create('a1'), {}, read.token), 403);
      const anonymous = await app.request('POST', '/api/v1/data/actions/production', { headers: { 'x-project': project.slug }, body: { actions: [create('a1')] } });
      expectErrorBody(anonymous, 401);
      expect(await doc('drafts.a1')).toBeNull();
    });

    it("lets editors and write tokens act, within a token's dataset", async () => {
      const editor = await createUser(app, app.admin, 'editor');
      ok(await act(create('a2'), {}, editor.token));
      const write = await createApiToken(app, app.admin, project.slug, { permissions: ['read', 'write'] });
      ok(await act(edit('a2', { set: { by: 'token' } }), {}, write.token));
      const history = ok(await data.history('a2')).revisions;
      expect(history[0]!.changed_by).toBe(`token:${write.id}`);
      const staging = await createApiToken(app, app.admin, project.slug, { permissions: ['read', 'write'], dataset: 'staging' });
      expectErrorBody(await act(create('a3'), {}, staging.token), 403);
    });
  });
});
