import { describe, expect, it } from 'vitest';
import { expectErrorBody, useTestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject, createUser } from '../helpers/fixtures.ts';
import { testEngine } from '../helpers/engine.ts';
import { sha256Hex } from '../../src/identity/secrets.ts';

interface TokenBody {
  id: string;
  name: string;
  permissions: string[];
  dataset: string | null;
  created_at: string;
  last_used_at?: string | null;
  token?: string;
}

describe(`API tokens (${testEngine})`, () => {
  const app = useTestApp();

  it('creates a token shown once, with read permission and all datasets by default', async () => {
    const project = await createProject(app, app.admin);
    const response = await app.request<TokenBody>('POST', `/api/v1/tokens/${project.slug}`, { token: app.admin, body: { name: 'CI' } });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ name: 'CI', permissions: ['read'], dataset: null });
    expect(response.body.token).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(response.body.token!.slice(4), 'base64url')).toHaveLength(32);

    const stored = await app.services.store.apiTokens.findByHash(sha256Hex(response.body.token!));
    expect(stored?.id).toBe(response.body.id);

    const list = await app.request<TokenBody[]>('GET', `/api/v1/tokens/${project.slug}`, { token: app.admin });
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toEqual({ ...response.body, token: undefined, last_used_at: null });
    expect(JSON.stringify(list.body)).not.toContain(response.body.token);
  });

  it('records last_used_at when a token is used', async () => {
    const project = await createProject(app, app.admin);
    const { token } = await createApiToken(app, app.admin, project.slug);
    await app.request('GET', '/api/v1/projects', { token });
    const list = await app.request<TokenBody[]>('GET', `/api/v1/tokens/${project.slug}`, { token: app.admin });
    expect(typeof list.body[0]?.last_used_at).toBe('string');
  });

  it('accepts a dataset scope and both permissions', async () => {
    const project = await createProject(app, app.admin, ['production', 'staging']);
    const response = await app.request<TokenBody>('POST', `/api/v1/tokens/${project.slug}`, {
      token: app.admin,
      body: { name: 'writer', permissions: ['read', 'write'], dataset: 'staging' },
    });
    expect(response.body).toMatchObject({ permissions: ['read', 'write'], dataset: 'staging' });
  });

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'x', permissions: ['admin'] }, 'permissions'],
    [{ name: 'x', permissions: [] }, 'permissions'],
    [{ name: 'x', permissions: 'read' }, 'permissions'],
    [{ name: 'x', dataset: 'not-a-dataset' }, 'dataset'],
    [{ name: 7 }, 'name'],
  ])('answers 400 for %j', async (body, field) => {
    const project = await createProject(app, app.admin);
    const error = expectErrorBody(await app.request('POST', `/api/v1/tokens/${project.slug}`, { token: app.admin, body }), 400);
    expect(error.message).toContain(field);
  });

  it('answers 404 for an unknown project or token', async () => {
    expectErrorBody(await app.request('POST', '/api/v1/tokens/nope', { token: app.admin, body: { name: 'x' } }), 404);
    expectErrorBody(await app.request('GET', '/api/v1/tokens/nope', { token: app.admin }), 404);
    const project = await createProject(app, app.admin);
    expectErrorBody(await app.request('DELETE', `/api/v1/tokens/${project.slug}/00000000-0000-0000-0000-000000000000`, { token: app.admin }), 404);
  });

  it('deletes (revokes) a token so it no longer authenticates', async () => {
    const project = await createProject(app, app.admin);
    const { id, token } = await createApiToken(app, app.admin, project.slug);
    expect((await app.request('GET', '/api/v1/projects', { token })).status).toBe(200);
    const deleted = await app.request('DELETE', `/api/v1/tokens/${project.slug}/${id}`, { token: app.admin });
    expect(deleted).toMatchObject({ status: 200, body: { deleted: true, id } });
    expectErrorBody(await app.request('GET', '/api/v1/projects', { token }), 401);
  });

  it("does not delete another project's token through this project", async () => {
    const a = await createProject(app, app.admin);
    const b = await createProject(app, app.admin);
    const { id } = await createApiToken(app, app.admin, b.slug);
    expectErrorBody(await app.request('DELETE', `/api/v1/tokens/${a.slug}/${id}`, { token: app.admin }), 404);
  });

  it('refuses token management with API tokens, even write tokens of the project', async () => {
    const project = await createProject(app, app.admin);
    const { token } = await createApiToken(app, app.admin, project.slug, { permissions: ['read', 'write'] });
    expectErrorBody(await app.request('GET', `/api/v1/tokens/${project.slug}`, { token }), 403);
    expectErrorBody(await app.request('POST', `/api/v1/tokens/${project.slug}`, { token, body: { name: 'x' } }), 403);
  });

  it('needs app.admin in the project: refuses editors, accepts project admins through project_access', async () => {
    const project = await createProject(app, app.admin);
    const editor = await createUser(app, app.admin, 'editor');
    expectErrorBody(await app.request('GET', `/api/v1/tokens/${project.slug}`, { token: editor.token }), 403);
    const projectAdmin = await createUser(app, app.admin, 'viewer', { project_access: [{ projectId: project.id, role: 'admin' }] });
    expect((await app.request('POST', `/api/v1/tokens/${project.slug}`, { token: projectAdmin.token, body: { name: 'x' } })).status).toBe(201);
    const other = await createProject(app, app.admin);
    expectErrorBody(await app.request('GET', `/api/v1/tokens/${other.slug}`, { token: projectAdmin.token }), 404);
  });

  it('answers a project the caller cannot see exactly as an unknown one (404), by slug and by id', async () => {
    const hidden = await createProject(app, app.admin);
    const { id: tokenId } = await createApiToken(app, app.admin, hidden.slug);
    const own = await createProject(app, app.admin);
    const outsiders = [
      await createUser(app, app.admin, 'viewer', { project_access: [{ projectId: own.id, role: 'admin' }] }),
      await createUser(app, app.admin, 'editor', { project_access: [] }),
    ];
    const routes: [string, (project: string) => string, unknown?][] = [
      ['GET', (project) => `/api/v1/tokens/${project}`],
      ['POST', (project) => `/api/v1/tokens/${project}`, { name: 'probe' }],
      ['DELETE', (project) => `/api/v1/tokens/${project}/${tokenId}`],
    ];
    for (const user of outsiders) {
      for (const [method, path, body] of routes) {
        for (const ref of [hidden.slug, hidden.id]) {
          const seen = await app.request(method, path(ref), { token: user.token, body });
          const unknown = await app.request(method, path(`x${ref}`), { token: user.token, body });
          expect(expectErrorBody(seen, 404).message).toBe(`Project "${ref}" not found`);
          expect(expectErrorBody(unknown, 404).message).toBe(`Project "x${ref}" not found`);
        }
      }
    }
    const listed = await app.request<TokenBody[]>('GET', `/api/v1/tokens/${hidden.slug}`, { token: app.admin });
    expect(listed.body.map((token) => token.id)).toEqual([tokenId]);
    // A caller who sees the project without its app.admin role is told so.
    const viewer = await createUser(app, app.admin, 'viewer', { project_access: [{ projectId: hidden.id, role: 'viewer' }] });
    expectErrorBody(await app.request('GET', `/api/v1/tokens/${hidden.slug}`, { token: viewer.token }), 403);
    expectErrorBody(await app.request('DELETE', `/api/v1/tokens/${hidden.slug}/${tokenId}`, { token: viewer.token }), 403);
  });
});
