import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, startTestApp, useTestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject, createUser, type TestProject, type TestUser } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';
import { solidPng } from '../helpers/images.ts';
import { signInThroughPage, tokenOf } from '../helpers/login-page.ts';

const ALL = '_id in path("**")';
const EDIT = ['read', 'create', 'update', 'history', 'editHistory'];

/** What Sanity Studio reads besides documents, through Sanity's dated API paths. */
describe(`Sanity Studio's endpoints (${testEngine})`, () => {
  const app = useTestApp();
  let project: TestProject;
  let editor: TestUser;
  let viewer: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    project = await createProject(app, app.admin, ['production', 'staging']);
    const elsewhere = await createProject(app, app.admin);
    editor = await createUser(app, app.admin, 'editor');
    viewer = await createUser(app, app.admin, 'editor', { project_access: [{ projectId: project.id, role: 'viewer' }] });
    outsider = await createUser(app, app.admin, 'editor', { project_access: [{ projectId: elsewhere.id, role: 'editor' }] });
  });

  const sanity = <T = unknown>(method: string, path: string, token?: string, body?: unknown) =>
    app.request<T>(method, `/api/v2025-02-19${path}`, { ...(token ? { token } : {}), headers: { 'x-sanity-project-id': project.slug }, ...(body === undefined ? {} : { body }) });

  describe('/users/me', () => {
    it('answers the CurrentUser with the roles the user has in the project Studio names', async () => {
      expect(ok(await sanity('GET', '/users/me', app.admin))).toMatchObject({ email: 'admin@example.com', roles: [{ name: 'administrator', title: 'Administrator' }], provider: 'local' });
      expect(ok(await sanity('GET', '/users/me', editor.token))).toMatchObject({ id: editor.id, name: expect.any(String), roles: [{ name: 'editor' }] });
      expect(ok(await sanity('GET', '/users/me', viewer.token))).toMatchObject({ roles: [{ name: 'viewer' }] });
      expect(ok(await sanity('GET', '/users/me', outsider.token))).toMatchObject({ id: outsider.id, roles: [] });
    });

    it('answers {} without a credential (Studio asks again without its token after a 401), 401 for a wrong one', async () => {
      expect(ok(await sanity('GET', '/users/me'))).toEqual({});
      expectErrorBody(await sanity('GET', '/users/me', 'not-a-valid-token'), 401);
      // The service's own path keeps its rule: a credential is required.
      expectErrorBody(await app.request('GET', '/api/v1/users/me'), 401);
      expect(Object.keys(ok(await app.request('GET', '/api/v1/users/me', { token: editor.token }))).sort()).toEqual(['created_at', 'email', 'id', 'name', 'project_access', 'role', 'updated_at']);
    });

    it('answers /users/:ids in Sanity\'s shape, emails for admins only', async () => {
      const asEditor = ok(await sanity<Record<string, unknown>[]>('GET', `/users/${viewer.id},${outsider.id},unknown-id`, editor.token));
      expect(asEditor).toEqual([
        { id: viewer.id, displayName: expect.any(String), imageUrl: null },
        { id: outsider.id, displayName: expect.any(String), imageUrl: null },
      ]);
      expect(ok(await sanity<Record<string, unknown>[]>('GET', `/users/${viewer.id}`, app.admin))[0]).toMatchObject({ email: viewer.email });
    });
  });

  describe('dataset grants (acl)', () => {
    const acl = (token: string, dataset = 'production', ref = project.slug) => sanity<{ filter: string; permissions: string[] }[]>('GET', `/projects/${ref}/datasets/${dataset}/acl`, token);

    it('follow the role in the project: editing for admins and editors, reading for viewers', async () => {
      expect(ok(await acl(app.admin))).toEqual([{ filter: ALL, permissions: EDIT }]);
      expect(ok(await acl(editor.token, 'staging', project.id))).toEqual([{ filter: ALL, permissions: EDIT }]);
      expect(ok(await acl(viewer.token))).toEqual([{ filter: ALL, permissions: ['read', 'history'] }]);
    });

    it('follow a token\'s permissions and dataset', async () => {
      const writer = await createApiToken(app, app.admin, project.slug, { permissions: ['read', 'write'], dataset: 'production' });
      const reader = await createApiToken(app, app.admin, project.slug, { permissions: ['read'] });
      expect(ok(await acl(writer.token))).toEqual([{ filter: ALL, permissions: EDIT }]);
      expect(ok(await acl(writer.token, 'staging'))).toEqual([]);
      expect(ok(await acl(reader.token))).toEqual([{ filter: ALL, permissions: ['read', 'history'] }]);
    });

    it('hide a project the caller cannot see, and answer 404 for an unknown dataset', async () => {
      expectErrorBody(await acl(outsider.token), 404);
      expectErrorBody(await acl(app.admin, 'nope'), 404);
    });
  });

  describe('CORS', () => {
    const preflight = (origin: string, path = '/api/v2025-02-19/data/query/production') =>
      fetch(`${app.url}${path}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });

    it('refuses a preflight from an origin no project allows, with the standard body', async () => {
      const refused = await preflight('https://unknown.example.com');
      expect(refused.status).toBe(403);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      expect(await refused.json()).toMatchObject({ statusCode: 403, error: 'Forbidden' });
    });

    it('allows the origins a project app.admin adds, with credentials where asked, until removed', async () => {
      const added = ok(await app.request<{ id: string; origin: string }>('POST', `/api/v1/projects/${project.slug}/cors`, { token: app.admin, body: { origin: 'https://studio.example.com/', allowCredentials: true } }), 201);
      expect(added.origin).toBe('https://studio.example.com');
      const allowed = await preflight('https://studio.example.com');
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin')).toBe('https://studio.example.com');
      expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
      expect(allowed.headers.get('access-control-allow-headers')).toMatch(/Authorization/i);
      const actual = await fetch(`${app.url}/api/v2025-02-19/users/me`, { headers: { origin: 'https://studio.example.com' } });
      expect(actual.headers.get('access-control-allow-origin')).toBe('https://studio.example.com');
      expect(ok(await app.request<unknown[]>('GET', `/api/v1/projects/${project.slug}/cors`, { token: app.admin }))).toHaveLength(1);
      ok(await app.request('DELETE', `/api/v1/projects/${project.slug}/cors/${added.id}`, { token: app.admin }));
      expect((await preflight('https://studio.example.com')).status).toBe(403);
    });

    it('answers the CORS probe (/ping) to any origin, without credentials', async () => {
      const ping = await fetch(`${app.url}/api/v2025-03-01/ping`, { headers: { origin: 'https://anywhere.example' } });
      expect(await ping.text()).toBe('PONG');
      expect(ping.headers.get('access-control-allow-origin')).toBe('https://anywhere.example');
      expect(ping.headers.get('access-control-allow-credentials')).toBeNull();
    });

    it('is managed by project admins with a session only, and refuses what is not an origin', async () => {
      const token = await createApiToken(app, app.admin, project.slug, { permissions: ['read', 'write'] });
      expectErrorBody(await app.request('POST', `/api/v1/projects/${project.slug}/cors`, { token: token.token, body: { origin: 'https://a.example' } }), 403);
      expectErrorBody(await app.request('POST', `/api/v1/projects/${project.slug}/cors`, { token: editor.token, body: { origin: 'https://a.example' } }), 403);
      expectErrorBody(await app.request('GET', `/api/v1/projects/${project.slug}/cors`, { token: outsider.token }), 404);
      for (const origin of ['https://a.example/path', 'ftp://a.example', 'https://user:pw@a.example', 'not a url']) {
        expectErrorBody(await app.request('POST', `/api/v1/projects/${project.slug}/cors`, { token: app.admin, body: { origin } }), 400);
      }
    });
  });

  describe('user settings (keyvalue)', () => {
    it('keeps each user\'s values by key, null for keys never set, and removes a key set to null', async () => {
      const keys = 'studio.structure-tool.layout.post,studio.announcement.seen';
      expect(ok(await sanity('GET', `/users/me/keyvalue/${keys}`, editor.token))).toEqual([
        { key: 'studio.structure-tool.layout.post', value: null },
        { key: 'studio.announcement.seen', value: null },
      ]);
      const entries = [{ key: 'studio.structure-tool.layout.post', value: { panes: [1, 2] } }];
      expect(ok(await sanity('PUT', '/users/me/keyvalue', editor.token, entries))).toEqual(entries);
      expect(ok(await sanity<{ value: unknown }[]>('GET', `/users/me/keyvalue/${keys}`, editor.token))[0]!.value).toEqual({ panes: [1, 2] });
      expect(ok(await sanity<{ value: unknown }[]>('GET', `/users/me/keyvalue/${keys}`, viewer.token))[0]!.value).toBeNull();
      ok(await sanity('PUT', '/users/me/keyvalue', editor.token, [{ key: 'studio.structure-tool.layout.post', value: null }]));
      expect(ok(await sanity<{ value: unknown }[]>('GET', `/users/me/keyvalue/${keys}`, editor.token))[0]!.value).toBeNull();
    });

    it('refuses tokens, odd keys and oversized values', async () => {
      const token = await createApiToken(app, app.admin, project.slug, { permissions: ['read'] });
      expectErrorBody(await sanity('GET', '/users/me/keyvalue/a', token.token), 403);
      expectErrorBody(await sanity('PUT', '/users/me/keyvalue', editor.token, [{ key: 'a b', value: 1 }]), 400);
      expectErrorBody(await sanity('PUT', '/users/me/keyvalue', editor.token, [{ key: 'big', value: 'x'.repeat(70_000) }]), 400);
    });
  });

  describe('images in <img>', () => {
    it('load with the sign-in cookie on the unversioned image path, and the cookie opens nothing else', async () => {
      const png = await solidPng(40, 30);
      const upload = await fetch(`${app.url}/api/v2021-06-07/assets/images/production?filename=a.png`, {
        method: 'POST',
        headers: { authorization: `Bearer ${app.admin}`, 'x-sanity-project-id': project.slug, 'content-type': 'image/png' },
        body: png,
      });
      const { document } = (await upload.json()) as { document: { _id: string } };
      const [, hash, size, ext] = /^image-([0-9a-f]+)-(\d+x\d+)-(\w+)$/.exec(document._id)!;
      const path = `/api/images/${project.slug}/production/${hash}-${size}.${ext}?w=20&fit=crop`;
      expect((await fetch(`${app.url}${path}`)).status).toBe(401);
      const signIn = await signInThroughPage(app, editor.email, editor.password, `${app.url}/`);
      const cookie = signIn.setCookies.find((line) => line.startsWith('cms_session='))!.split(';')[0]!;
      const image = await fetch(`${app.url}${path}`, { headers: { cookie } });
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toMatch(/^image\//);
      expect((await fetch(`${app.url}/api/v2025-02-19/data/query/production?query=1`, { headers: { cookie, 'x-sanity-project-id': project.slug } })).status).toBe(401);
      expect(tokenOf(signIn)).toMatch(/^sess_/);
      expect((await fetch(`${app.url}${path}`, { headers: { cookie: `cms_session=${tokenOf(signIn)}x` } })).status).toBe(401);
      expect((await fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${app.admin}` } })).status).toBe(200);
    });
  });

  describe('the rest Studio calls', () => {
    it('answers the probes, features, telemetry and journeys', async () => {
      const pong = await fetch(`${app.url}/api/v2025-03-01/ping`);
      expect([pong.status, await pong.text()]).toEqual([200, 'PONG']);
      expect(await (await fetch(`${app.url}/api/v1/data/ping/production`)).text()).toBe('PONG');
      expect(ok(await sanity('GET', '/features', editor.token))).toEqual([]);
      expect(ok(await sanity('GET', '/intake/telemetry-status', editor.token))).toEqual({ status: 'denied' });
      const beacon = await fetch(`${app.url}/api/v2025-02-19/intake/batch`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"batch":[]}' });
      expect(beacon.status).toBe(204);
      expect(ok(await sanity('GET', '/journey/announcements', editor.token))).toBeNull();
    });

    it('answers the project with its members, its datasets and no applications', async () => {
      const view = ok(await sanity<{ id: string; displayName: string; members: { id: string; roles: { name: string }[]; isCurrentUser: boolean }[] }>('GET', `/projects/${project.id}`, editor.token));
      expect(view).toMatchObject({ id: project.id, displayName: expect.any(String) });
      expect(view.members.find((member) => member.id === viewer.id)?.roles).toEqual([{ name: 'viewer', title: 'Viewer' }]);
      expect(view.members.find((member) => member.id === editor.id)?.isCurrentUser).toBe(true);
      expect(view.members.some((member) => member.id === outsider.id)).toBe(false);
      expect(ok(await sanity('GET', `/projects/${project.slug}/datasets`, editor.token))).toEqual([
        { name: 'production', aclMode: 'private' },
        { name: 'staging', aclMode: 'private' },
      ]);
      expect(ok(await sanity('GET', `/projects/${project.slug}/user-applications`, editor.token))).toEqual([]);
    });

    it('takes the project from the path (/api/p/<project>/...), for requests that send no project header', async () => {
      const other = await createProject(app, app.admin);
      ok(await dataClient(app, app.admin, other.slug).mutate([{ create: { _id: 'only-in-other', _type: 'note' } }]));
      const query = encodeURIComponent('*[_id == "only-in-other"][0]._id');
      // Without a header, two projects have a "production" dataset: Studio's listeners would be refused.
      expectErrorBody(await app.request('GET', `/api/v2025-02-19/data/query/production?query=${query}`, { token: app.admin }), 400);
      expect(ok(await app.request<{ result: unknown }>('GET', `/api/p/${other.slug}/v2025-02-19/data/query/production?query=${query}`, { token: app.admin })).result).toBe('only-in-other');
      expect(ok(await app.request<{ result: unknown }>('GET', `/api/p/${project.slug}/v2025-02-19/data/query/production?query=${query}`, { token: app.admin })).result).toBeNull();
      expect(ok(await app.request('GET', `/api/p/${project.id}/v2025-02-19/users/me`, { token: viewer.token }))).toMatchObject({ roles: [{ name: 'viewer' }] });
      const events = await fetch(`${app.url}/api/p/${other.slug}/v2025-02-19/data/listen/production?query=${encodeURIComponent('*')}`, { headers: { authorization: `Bearer ${app.admin}` } });
      expect(events.status).toBe(200);
      await events.body?.cancel();
    });

    it('lists the documents that refer to one', async () => {
      const data = dataClient(app, editor.token, project.slug);
      ok(await data.mutate([{ create: { _id: 'ada', _type: 'author' } }, { create: { _id: 'p1', _type: 'post', author: { _ref: 'ada' } } }, { create: { _id: 'drafts.p2', _type: 'post', author: { _ref: 'ada' } } }]));
      const references = ok(await sanity<{ totalCount: number; references: { documentId: string }[] }>('GET', '/data/references/production/documents/ada/to?excludeInternalReferences=true&excludePaths=true', editor.token));
      expect(references.totalCount).toBe(2);
      expect(references.references.map((reference) => reference.documentId).sort()).toEqual(['drafts.p2', 'p1']);
    });
  });
});

describe(`asset URLs with PUBLIC_URL (${testEngine})`, () => {
  it('are absolute under PUBLIC_URL, as Sanity\'s are, and relative without it', async () => {
    for (const [env, expected] of [
      [{ PUBLIC_URL: 'https://cms.example.com/base/' }, /^https:\/\/cms\.example\.com\/base\/api\/v1\/assets\/[0-9a-f-]{36}$/],
      [{}, /^\/api\/v1\/assets\/[0-9a-f-]{36}$/],
    ] as const) {
      const app = await startTestApp(env);
      try {
        const admin = await app.login();
        const project = await createProject(app, admin);
        const upload = await fetch(`${app.url}/api/v2021-06-07/assets/images/production?filename=a.png`, {
          method: 'POST',
          headers: { authorization: `Bearer ${admin}`, 'x-sanity-project-id': project.slug, 'content-type': 'image/png' },
          body: await solidPng(8, 8),
        });
        const { document } = (await upload.json()) as { document: { url: string } };
        expect(document.url).toMatch(expected);
      } finally {
        await app.close();
      }
    }
  });
});
