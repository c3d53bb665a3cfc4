import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, useTestApp } from '../helpers/test-app.ts';
import { createProject, createUser } from '../helpers/fixtures.ts';
import { dataClient, ok, outboxEvents } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';

describe(`revision history (${testEngine})`, () => {
  const app = useTestApp();
  let data: ReturnType<typeof dataClient>;
  let adminId: string;

  beforeAll(async () => {
    adminId = (await app.request<{ id: string }>('GET', '/api/v1/users/me', { token: app.admin })).body.id;
    data = dataClient(app, app.admin, (await createProject(app, app.admin)).slug);
  });

  it('keeps one history per base id, newest first, for drafts and published forms', async () => {
    await data.mutate([{ create: { _id: 'drafts.h1', _type: 'post', v: 1 } }]);
    await data.mutate([{ patch: { id: 'drafts.h1', set: { v: 2 } } }]);
    await data.publish('h1');
    const history = ok(await data.history('h1'));
    expect(history.documentId).toBe('h1');
    expect(history.revisions.map((r) => r.revision)).toEqual([3, 2, 1]);
    expect(history.revisions.every((r) => r.changed_by === adminId)).toBe(true);
    expect(Object.keys(history.revisions[0]!).sort()).toEqual(['changed_by', 'created_at', 'id', 'revision']);
    expect(ok(await data.history('drafts.h1')).revisions).toHaveLength(3);
  });

  it('pages with limit (default 50, max 100) and offset', async () => {
    await data.mutate([{ create: { _id: 'h2', _type: 'post', n: 0 } }]);
    for (let i = 0; i < 55; i++) await data.mutate([{ patch: { id: 'h2', inc: { n: 1 } } }]);
    expect(ok(await data.history('h2')).revisions).toHaveLength(50);
    const page = ok(await data.history('h2', '?limit=5&offset=10')).revisions.map((r) => r.revision);
    expect(page).toEqual([46, 45, 44, 43, 42]);
    expectErrorBody(await data.history('h2', '?limit=101'), 400);
    expectErrorBody(await data.history('h2', '?limit=0'), 400);
    expectErrorBody(await data.history('h2', '?offset=-1'), 400);
    expectErrorBody(await data.history('h2', '?limit=ten'), 400);
  });

  it('returns an empty history for a document that never existed', async () => {
    expect(ok(await data.history('ghost'))).toEqual({ documentId: 'ghost', revisions: [] });
  });

  it('returns one revision with its full content, 404 for unknown ones', async () => {
    await data.mutate([{ create: { _id: 'h3', _type: 'post', title: 'First' } }]);
    await data.mutate([{ patch: { id: 'h3', set: { title: 'Second' } } }]);
    const revision = ok(await data.revision('h3', 1));
    expect(revision).toMatchObject({ documentId: 'h3', revision: 1, changed_by: adminId, document: { _id: 'h3', title: 'First' } });
    expect(Object.keys(revision).sort()).toEqual(['changed_by', 'created_at', 'document', 'documentId', 'id', 'revision']);
    expectErrorBody(await data.revision('h3', 99), 404);
    expectErrorBody(await data.revision('nobody', 1), 404);
    expectErrorBody(await data.revision('h3', 'one'), 400);
  });

  it('restores a revision as the draft, creating a new revision and emitting document.create', async () => {
    await data.mutate([{ create: { _id: 'h4', _type: 'post', title: 'Original' } }]);
    await data.mutate([{ patch: { id: 'h4', set: { title: 'Changed' } } }]);
    const restored = ok(await data.restore('h4', 1));
    expect(restored).toMatchObject({ _id: 'drafts.h4', title: 'Original' });
    expect(ok(await data.doc('drafts.h4')).title).toBe('Original');
    expect(ok(await data.doc('h4')).title).toBe('Changed');
    expect(ok(await data.history('h4')).revisions.map((r) => r.revision)).toEqual([3, 2, 1]);
    const events = (await outboxEvents(app)).filter((e) => e.documentId === 'drafts.h4').map((e) => e.event);
    expect(events).toEqual(['document.create']);
    // A second restore updates the existing draft.
    await data.restore('h4', 2);
    expect((await outboxEvents(app)).filter((e) => e.documentId === 'drafts.h4').map((e) => e.event)).toEqual([
      'document.create',
      'document.update',
    ]);
    ok(await data.publish('h4'));
    expect(ok(await data.doc('h4')).title).toBe('Changed');
  });

  it('restores a deleted document from its history', async () => {
    await data.mutate([{ create: { _id: 'h5', _type: 'post', title: 'Kept' } }]);
    await data.mutate([{ delete: { id: 'h5' } }]);
    expect(ok(await data.restore('h5', 1)).title).toBe('Kept');
  });

  it('answers 404 when restoring an unknown document or revision', async () => {
    expectErrorBody(await data.restore('nobody', 1), 404);
    await data.mutate([{ create: { _id: 'h6', _type: 'post' } }]);
    expectErrorBody(await data.restore('h6', 7), 404);
  });

  it('lets viewers read history but not restore', async () => {
    const admin = await app.login();
    const viewer = await createUser(app, admin, 'viewer');
    const project = await createProject(app, admin);
    const asAdmin = dataClient(app, admin, project.slug);
    const asViewer = dataClient(app, viewer.token, project.slug);
    await asAdmin.mutate([{ create: { _id: 'h7', _type: 'post' } }]);
    expect(ok(await asViewer.history('h7')).revisions).toHaveLength(1);
    expect(ok(await asViewer.revision('h7', 1)).revision).toBe(1);
    expectErrorBody(await asViewer.restore('h7', 1), 403);
  });
});
