import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, useTestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject, createUser, type TestProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';

describe(`access to /data routes (${testEngine})`, () => {
  const app = useTestApp();
  let project: TestProject;

  beforeAll(async () => {
    project = await createProject(app, app.admin, ['production', 'staging']);
    await dataClient(app, app.admin, project.slug).mutate([{ create: { _id: 'shared', _type: 'post', title: 'Hi' } }]);
  });

  const create = { create: { _type: 'post' } };

  it('lets viewers read but not mutate, publish or schedule', async () => {
    const viewer = dataClient(app, (await createUser(app, app.admin, 'viewer')).token, project.slug);
    expect(ok(await viewer.doc('shared')).title).toBe('Hi');
    expect(ok(await viewer.counts()).counts.post).toBe(1);
    expectErrorBody(await viewer.mutate([create]), 403);
    expectErrorBody(await viewer.publish('shared'), 403);
    expectErrorBody(await viewer.unpublish('shared'), 403);
    expectErrorBody(await viewer.schedule('shared', null), 403);
  });

  it('lets editors mutate, and a viewer promoted through project_access too', async () => {
    const editor = dataClient(app, (await createUser(app, app.admin, 'editor')).token, project.slug);
    expect((await editor.mutate([create])).status).toBe(200);
    const promoted = await createUser(app, app.admin, 'viewer', { project_access: [{ projectId: project.id, role: 'editor' }] });
    expect((await dataClient(app, promoted.token, project.slug).mutate([create])).status).toBe(200);
  });

  it('refuses users restricted to other projects', async () => {
    const other = await createProject(app, app.admin);
    const outsider = await createUser(app, app.admin, 'editor', { project_access: [{ projectId: other.id, role: 'admin' }] });
    expectErrorBody(await dataClient(app, outsider.token, project.slug).doc('shared'), 404);
  });

  it('lets read tokens read and refuses their writes; write tokens write', async () => {
    const read = dataClient(app, (await createApiToken(app, app.admin, project.slug)).token, project.slug);
    expect(ok(await read.doc('shared')).title).toBe('Hi');
    expectErrorBody(await read.mutate([create]), 403);
    const write = dataClient(app, (await createApiToken(app, app.admin, project.slug, { permissions: ['read', 'write'] })).token, project.slug);
    expect((await write.mutate([create])).status).toBe(200);
  });

  it('keeps a dataset-scoped token in its dataset', async () => {
    const { token } = await createApiToken(app, app.admin, project.slug, { permissions: ['read', 'write'], dataset: 'staging' });
    expect((await dataClient(app, token, project.slug, 'staging').mutate([create])).status).toBe(200);
    expectErrorBody(await dataClient(app, token, project.slug, 'production').doc('shared'), 403);
    expectErrorBody(await dataClient(app, token, project.slug, 'production').mutate([create]), 403);
  });

  it("refuses a token naming another project and uses the token's own project otherwise", async () => {
    const other = await createProject(app, app.admin);
    const { token } = await createApiToken(app, app.admin, other.slug, { permissions: ['read', 'write'] });
    expectErrorBody(await dataClient(app, token, project.slug).doc('shared'), 403);
    // Without naming a project the token's own is used: its dataset has no such document.
    expectErrorBody(await app.request('GET', '/api/v1/data/doc/production/shared', { token }), 404);
  });

  it('finds the project by X-Sanity-Project-ID, by ?project=, or as the only one with the dataset', async () => {
    const unique = await createProject(app, app.admin, ['unique-ds']);
    await dataClient(app, app.admin, unique.slug, 'unique-ds').mutate([{ create: { _id: 'u1', _type: 'post' } }]);
    const path = '/api/v1/data/doc/unique-ds/u1';
    expect((await app.request('GET', path, { token: app.admin })).status).toBe(200);
    expect((await app.request('GET', `${path}?project=${unique.slug}`, { token: app.admin })).status).toBe(200);
    expect((await app.request('GET', path, { token: app.admin, headers: { 'x-sanity-project-id': unique.id } })).status).toBe(200);
    // "production" exists in several projects: the request must say which.
    expect(expectErrorBody(await app.request('GET', '/api/v1/data/doc/production/shared', { token: app.admin }), 400).message).toContain('X-Project');
    expect(expectErrorBody(await app.request('GET', '/api/v1/data/doc/production/shared', { token: app.admin, headers: { 'x-project': 'nope' } }), 404).message).toBe(
      'project not found',
    );
  });

  it('requires authentication', async () => {
    expectErrorBody(await app.request('GET', '/api/v1/data/doc/production/shared'), 401);
    expectErrorBody(await app.request('POST', '/api/v1/data/mutate/production', { body: { mutations: [create] } }), 401);
  });

  describe('localized fields', () => {
    it('resolves ?language= with the default as fallback, and refuses unknown languages', async () => {
      const localized = await createProject(app, app.admin);
      await app.request('PUT', `/api/v1/projects/${localized.slug}`, {
        token: app.admin,
        body: { locales: { default: 'en', languages: [{ id: 'en', title: 'English' }, { id: 'nb', title: 'Norsk' }, { id: 'de', title: 'Deutsch' }] } },
      });
      const data = dataClient(app, app.admin, localized.slug);
      await data.mutate([
        {
          create: {
            _id: 'loc',
            _type: 'post',
            title: { _type: 'localeString', en: 'Hello', nb: 'Hei' },
            body: [{ _key: 'a', text: { en: 'Text' } }],
            tags: { en: ['x'] },
            plain: { en: 'e', extra: 1 },
          },
        },
      ]);
      const nb = ok(await data.doc('loc', '?language=nb'));
      expect(nb).toMatchObject({ title: 'Hei', body: [{ _key: 'a', text: 'Text' }], tags: ['x'], plain: { en: 'e', extra: 1 } });
      const de = ok(await data.doc('loc', '?language=de'));
      expect(de.title).toBe('Hello');
      expect(ok(await data.doc('loc')).title).toEqual({ _type: 'localeString', en: 'Hello', nb: 'Hei' });
      expectErrorBody(await data.doc('loc', '?language=fr'), 400);
      expectErrorBody(await dataClient(app, app.admin, project.slug).doc('shared', '?language=en'), 400);
    });
  });
});
