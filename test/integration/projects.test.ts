import { describe, expect, it } from 'vitest';
import { expectErrorBody, useTestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject, createUser } from '../helpers/fixtures.ts';
import { testEngine } from '../helpers/engine.ts';

interface ProjectBody {
  id: string;
  name: string;
  slug: string;
  datasets: string[];
  locales?: unknown;
  created_at: string;
  updated_at: string;
}

describe(`projects (${testEngine})`, () => {
  const app = useTestApp();

  const create = (token: string, body: unknown) => app.request<ProjectBody>('POST', '/api/v1/projects', { token, body });

  it('creates a project with datasets ["production"] by default and no locales in the response', async () => {
    const response = await create(app.admin, { name: 'Blog', slug: 'blog' });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ name: 'Blog', slug: 'blog', datasets: ['production'] });
    expect(response.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect('locales' in response.body).toBe(false);
    const fetched = await app.request<ProjectBody>('GET', '/api/v1/projects/blog', { token: app.admin });
    expect(fetched.body).toMatchObject({ slug: 'blog', locales: null });
  });

  it('keeps given datasets and answers 409 for a taken slug', async () => {
    const response = await create(app.admin, { name: 'Shop', slug: 'shop', datasets: ['production', 'staging'] });
    expect(response.body.datasets).toEqual(['production', 'staging']);
    expectErrorBody(await create(app.admin, { name: 'Shop again', slug: 'shop' }), 409);
  });

  it.each([
    [{ slug: 'x' }, 'name'],
    [{ name: 'x' }, 'slug'],
    [{ name: 'x', slug: 'Has Spaces' }, 'slug'],
    [{ name: 'x', slug: '../etc' }, 'slug'],
    [{ name: 'x', slug: 'ok-slug', datasets: [] }, 'dataset'],
    [{ name: 'x', slug: 'ok-slug', datasets: ['Bad Name'] }, 'dataset'],
    [{ name: 'x', slug: 'ok-slug', datasets: ['a', 'a'] }, 'dataset'],
    [{ name: 'x', slug: 'ok-slug', datasets: 'production' }, 'datasets'],
    [{ name: 5, slug: 'ok-slug' }, 'name'],
  ])('answers 400 for %j', async (body, field) => {
    expect(expectErrorBody(await create(app.admin, body), 400).message).toContain(field);
  });

  it('lets only admins create and update projects', async () => {
    const editor = await createUser(app, app.admin, 'editor');
    expectErrorBody(await create(editor.token, { name: 'x', slug: 'editor-project' }), 403);
    const project = await createProject(app, app.admin);
    expectErrorBody(await app.request('PUT', `/api/v1/projects/${project.slug}`, { token: editor.token, body: { name: 'y' } }), 403);
  });

  it('updates name, datasets and locales', async () => {
    const project = await createProject(app, app.admin);
    const locales = { default: 'en', languages: [{ id: 'en', title: 'English' }, { id: 'nb', title: 'Norsk' }] };
    const response = await app.request<ProjectBody>('PUT', `/api/v1/projects/${project.slug}`, {
      token: app.admin,
      body: { name: 'Renamed', datasets: ['production', 'staging'], locales },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ name: 'Renamed', datasets: ['production', 'staging'], locales });
    expect(Date.parse(response.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(response.body.created_at));
    const cleared = await app.request<ProjectBody>('PUT', `/api/v1/projects/${project.slug}`, { token: app.admin, body: { locales: null } });
    expect(cleared.body.locales).toBeNull();
  });

  it.each([
    [{ locales: { default: 'fr', languages: [{ id: 'en', title: 'English' }] } }, 'default'],
    [{ locales: { default: 'en', languages: [] } }, 'languages'],
    [{ locales: { default: 'en', languages: [{ id: 'en', title: 'English' }, { id: 'en', title: 'Again' }] } }, 'repeat'],
    [{ locales: { default: 'e n', languages: [{ id: 'e n', title: 'Bad' }] } }, 'language id'],
    [{ locales: { languages: [{ id: 'en', title: 'English' }] } }, 'default'],
    [{ locales: 'en' }, 'locales'],
    [{ datasets: [] }, 'dataset'],
    [{ slug: 'new-slug' }, 'slug'],
  ])('answers 400 for the update %j', async (body, text) => {
    const project = await createProject(app, app.admin);
    const error = expectErrorBody(await app.request('PUT', `/api/v1/projects/${project.slug}`, { token: app.admin, body }), 400);
    expect(error.message).toContain(text);
  });

  it('answers 404 for an unknown project', async () => {
    expectErrorBody(await app.request('GET', '/api/v1/projects/nope', { token: app.admin }), 404);
    expectErrorBody(await app.request('PUT', '/api/v1/projects/nope', { token: app.admin, body: { name: 'x' } }), 404);
  });

  describe('visibility', () => {
    it('shows every project to users without project_access and only listed ones to users with it', async () => {
      const a = await createProject(app, app.admin);
      const b = await createProject(app, app.admin);
      const everywhere = await createUser(app, app.admin, 'viewer');
      const restricted = await createUser(app, app.admin, 'viewer', { project_access: [{ projectId: a.id, role: 'editor' }] });

      const all = await app.request<ProjectBody[]>('GET', '/api/v1/projects', { token: everywhere.token });
      expect(all.body.map((p) => p.slug)).toEqual(expect.arrayContaining([a.slug, b.slug]));

      const mine = await app.request<ProjectBody[]>('GET', '/api/v1/projects', { token: restricted.token });
      expect(mine.body.map((p) => p.slug)).toEqual([a.slug]);
      expect((await app.request('GET', `/api/v1/projects/${a.slug}`, { token: restricted.token })).status).toBe(200);
      expectErrorBody(await app.request('GET', `/api/v1/projects/${b.slug}`, { token: restricted.token }), 404);
    });

    it("shows an API token only its own project and refuses another's with 403", async () => {
      const a = await createProject(app, app.admin);
      const b = await createProject(app, app.admin);
      const { token } = await createApiToken(app, app.admin, a.slug);
      const list = await app.request<ProjectBody[]>('GET', '/api/v1/projects', { token });
      expect(list.body.map((p) => p.slug)).toEqual([a.slug]);
      expect((await app.request('GET', `/api/v1/projects/${a.slug}`, { token })).status).toBe(200);
      expectErrorBody(await app.request('GET', `/api/v1/projects/${b.slug}`, { token }), 403);
      expectErrorBody(await create(token, { name: 'x', slug: 'from-token' }), 403);
    });
  });
});
