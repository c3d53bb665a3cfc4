import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, useTestApp } from '../helpers/test-app.ts';
import { createProject } from '../helpers/fixtures.ts';
import { dataClient, ok, outboxEvents } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';

/** The state table for documents, transition by transition. */
describe(`publishing (${testEngine})`, () => {
  const app = useTestApp();
  let data: ReturnType<typeof dataClient>;

  beforeAll(async () => {
    data = dataClient(app, app.admin, (await createProject(app, app.admin)).slug);
  });

  const eventsOf = async (documentId: string) =>
    (await outboxEvents(app)).filter((event) => event.documentId === documentId || event.documentId === `drafts.${documentId}`).map((e) => e.event);

  it('none -> draft: create makes a draft and emits document.create', async () => {
    await data.mutate([{ create: { _id: 'drafts.s1', _type: 'post', title: 'T' } }]);
    expect(ok(await data.doc('drafts.s1')).title).toBe('T');
    expect(await eventsOf('s1')).toEqual(['document.create']);
  });

  it('draft -> published: the draft content becomes the published document; the draft is removed', async () => {
    await data.mutate([{ create: { _id: 'drafts.s2', _type: 'post', title: 'Draft title' } }]);
    const draft = ok(await data.doc('drafts.s2'));
    const published = ok(await data.publish('s2'));
    expect(published).toMatchObject({ _id: 's2', _type: 'post', title: 'Draft title', _createdAt: draft._createdAt });
    expect(published._rev).not.toBe(draft._rev);
    expect(ok(await data.doc('s2'))).toEqual(published);
    expectErrorBody(await data.doc('drafts.s2'), 404);
    expect(await eventsOf('s2')).toEqual(['document.create', 'document.publish']);
  });

  it('publish accepts the draft id too, and keeps the published _createdAt on republish', async () => {
    await data.mutate([{ create: { _id: 'drafts.s3', _type: 'post', v: 1 } }]);
    const first = ok(await data.publish('drafts.s3'));
    await data.mutate([{ create: { _id: 'drafts.s3', _type: 'post', v: 2 } }]);
    const second = ok(await data.publish('s3'));
    expect(second).toMatchObject({ v: 2, _createdAt: first._createdAt });
  });

  it('publish without a draft is 404', async () => {
    await data.mutate([{ create: { _id: 's4', _type: 'post' } }]);
    expectErrorBody(await data.publish('s4'), 404);
    expectErrorBody(await data.publish('nothing-here'), 404);
  });

  it('published -> draft: unpublish removes the published document and keeps its content as the draft', async () => {
    await data.mutate([{ create: { _id: 'drafts.s5', _type: 'post', title: 'P' } }]);
    await data.publish('s5');
    const draft = ok(await data.unpublish('s5'));
    expect(draft).toMatchObject({ _id: 'drafts.s5', title: 'P' });
    expectErrorBody(await data.doc('s5'), 404);
    expect(ok(await data.doc('drafts.s5')).title).toBe('P');
    expect(await eventsOf('s5')).toEqual(['document.create', 'document.publish', 'document.unpublish']);
  });

  it('unpublish keeps an existing draft as it is', async () => {
    await data.mutate([{ create: { _id: 's6', _type: 'post', title: 'Published' } }, { create: { _id: 'drafts.s6', _type: 'post', title: 'Edited' } }]);
    expect(ok(await data.unpublish('drafts.s6')).title).toBe('Edited');
    expect(ok(await data.doc('drafts.s6')).title).toBe('Edited');
  });

  it('unpublish without a published document is 404', async () => {
    await data.mutate([{ create: { _id: 'drafts.s7', _type: 'post' } }]);
    expectErrorBody(await data.unpublish('s7'), 404);
  });

  it('counts only published documents, per type', async () => {
    const project = await createProject(app, await app.login());
    const fresh = dataClient(app, await app.login(), project.slug);
    await fresh.mutate([
      { create: { _id: 'a1', _type: 'article' } },
      { create: { _id: 'a2', _type: 'article' } },
      { create: { _id: 'drafts.a3', _type: 'article' } },
      { create: { _id: 'p1', _type: 'person' } },
      { create: { _id: 'drafts.p2', _type: 'person' } },
    ]);
    expect(ok(await fresh.counts())).toEqual({ counts: { article: 2, person: 1 } });
  });

  it('answers 400 for malformed document ids in paths', async () => {
    expectErrorBody(await data.publish('bad%20id'), 400);
    expectErrorBody(await data.doc('-starts-with-dash'), 400);
  });
});
