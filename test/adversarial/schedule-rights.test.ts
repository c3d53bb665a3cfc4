import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject, createUser } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';

/** A scheduled publish runs with its author's rights as they are when it fires (docs/decisions.md). */
describe(`scheduled publishes and the scheduler's rights (${testEngine})`, () => {
  const app = useTestApp();
  let project: { id: string; slug: string };
  let adminData: ReturnType<typeof dataClient>;

  beforeAll(async () => {
    project = await createProject(app, app.admin);
    adminData = dataClient(app, app.admin, project.slug);
  });

  /** Creates a draft and schedules it (already due) as `token`. */
  async function scheduleDue(token: string, id: string): Promise<void> {
    const data = dataClient(app, token, project.slug);
    ok(await data.mutate([{ create: { _id: `drafts.${id}`, _type: 'post', title: id } }]));
    ok(await data.schedule(id, new Date(Date.now() - 1000).toISOString()));
  }

  const published = async (id: string) => (await adminData.doc(id)).status === 200;

  it('fires for an editor who still is one', async () => {
    const editor = await createUser(app, app.admin, 'editor');
    await scheduleDue(editor.token, 'kept-rights');
    await app.services.scheduler.tick();
    expect(await published('kept-rights')).toBe(true);
  });

  it('is dropped when its author was demoted to viewer', async () => {
    const editor = await createUser(app, app.admin, 'editor');
    await scheduleDue(editor.token, 'demoted');
    ok(await app.request('PUT', `/api/v1/users/${editor.id}`, { token: app.admin, body: { role: 'viewer' } }));
    await app.services.scheduler.tick();
    expect(await published('demoted')).toBe(false);
    expect(ok(await adminData.getSchedule('demoted')).scheduledAt).toBeNull();
    expect(ok(await adminData.doc('drafts.demoted')).title).toBe('demoted');
  });

  it('is dropped when its author lost the project through project_access', async () => {
    const other = await createProject(app, app.admin);
    const editor = await createUser(app, app.admin, 'editor');
    await scheduleDue(editor.token, 'moved-away');
    ok(await app.request('PUT', `/api/v1/users/${editor.id}`, { token: app.admin, body: { project_access: [{ projectId: other.id, role: 'editor' }] } }));
    await app.services.scheduler.tick();
    expect(await published('moved-away')).toBe(false);
  });

  it('is dropped when its write token was deleted, and fires while it exists', async () => {
    const kept = await createApiToken(app, app.admin, project.slug, { permissions: ['read', 'write'] });
    const deleted = await createApiToken(app, app.admin, project.slug, { permissions: ['read', 'write'] });
    await scheduleDue(kept.token, 'token-kept');
    await scheduleDue(deleted.token, 'token-deleted');
    ok(await app.request('DELETE', `/api/v1/tokens/${project.slug}/${deleted.id}`, { token: app.admin }));
    await app.services.scheduler.tick();
    expect(await published('token-kept')).toBe(true);
    expect(await published('token-deleted')).toBe(false);
  });
});
