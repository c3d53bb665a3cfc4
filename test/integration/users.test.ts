import { describe, expect, it, vi } from 'vitest';
import { expectErrorBody, useTestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject, createUser } from '../helpers/fixtures.ts';
import { testEngine } from '../helpers/engine.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { PasswordHasher } from '../../src/identity/passwords.ts';

interface SafeUserBody {
  id: string;
  email: string;
  name: string;
  role: string;
  project_access: unknown;
  created_at: string;
  updated_at: string;
}

describe(`users (${testEngine})`, () => {
  const app = useTestApp();

  const create = (token: string, body: unknown) => app.request<SafeUserBody>('POST', '/api/v1/users', { token, body });

  it('creates a user with the default role editor and never returns the password hash', async () => {
    const response = await create(app.admin, { email: 'New.User@Example.com', name: 'New User', password: 'correct-horse' });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ email: 'new.user@example.com', name: 'New User', role: 'editor', project_access: null });
    expect(Object.keys(response.body).sort()).toEqual(['created_at', 'email', 'id', 'name', 'project_access', 'role', 'updated_at']);
    expect(JSON.stringify(response.body)).not.toMatch(/password|\$2[aby]\$/);
    const stored = await app.services.store.users.findById(response.body.id);
    expect(stored?.passwordHash).toMatch(/^\$2b\$04\$/);
  });

  it('hashes with BCRYPT_ROUNDS, 12 by default', async () => {
    const { loadConfig } = await import('../../src/config.ts');
    expect(loadConfig({}).bcryptRounds).toBe(12);
  });

  it('answers 409 for an existing email, in any case', async () => {
    await create(app.admin, { email: 'dup@example.com', name: 'Dup', password: 'password-1' });
    expectErrorBody(await create(app.admin, { email: 'DUP@example.com', name: 'Dup', password: 'password-1' }), 409);
  });

  it.each([
    [{ name: 'x', password: 'password-1' }, 'email'],
    [{ email: 'a@example.com', password: 'password-1' }, 'name'],
    [{ email: 'a@example.com', name: 'x' }, 'password'],
    [{ email: 'not-an-email', name: 'x', password: 'password-1' }, 'email'],
    [{ email: 'a@example.com', name: 'x', password: 'short' }, 'password'],
    [{ email: 'a@example.com', name: 'x', password: 'p'.repeat(73) }, 'password'],
    [{ email: 'a@example.com', name: 'x', password: 'password-1', role: 'owner' }, 'role'],
    [{ email: 'a@example.com', name: 123, password: 'password-1' }, 'name'],
    [{ email: 'a@example.com', name: '   ', password: 'password-1' }, 'name'],
    [{ email: 'a@example.com', name: 'x', password: 'password-1', isAdmin: true }, 'isAdmin'],
  ])('answers 400 for %j', async (body, field) => {
    expect(expectErrorBody(await create(app.admin, body), 400).message).toContain(field);
  });

  it('lets only admins list and create users', async () => {
    const editor = await createUser(app, app.admin, 'editor');
    expectErrorBody(await app.request('GET', '/api/v1/users', { token: editor.token }), 403);
    expectErrorBody(await create(editor.token, { email: 'x@example.com', name: 'x', password: 'password-1' }), 403);
    const list = await app.request<SafeUserBody[]>('GET', '/api/v1/users', { token: app.admin });
    expect(list.status).toBe(200);
    expect(list.body.some((user) => user.id === editor.id)).toBe(true);
    expect(JSON.stringify(list.body)).not.toMatch(/password/);
  });

  it('returns the caller from /users/me', async () => {
    const viewer = await createUser(app, app.admin, 'viewer');
    const me = await app.request<SafeUserBody>('GET', '/api/v1/users/me', { token: viewer.token });
    expect(me.body).toMatchObject({ id: viewer.id, email: viewer.email, role: 'viewer' });
  });

  describe('PUT /users/:id', () => {
    it('lets a user change their own name, email and password', async () => {
      const user = await createUser(app, app.admin, 'editor');
      const email = `renamed-${Date.now()}@example.com`;
      const response = await app.request<SafeUserBody>('PUT', `/api/v1/users/${user.id}`, {
        token: user.token,
        body: { name: 'Renamed', email, password: 'a-new-password' },
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ name: 'Renamed', email });
      expect(await app.login(email, 'a-new-password')).toBeTypeOf('string');
      expectErrorBody(await app.request('POST', '/api/v1/auth/login', { body: { email, password: user.password } }), 401);
    });

    it('ends every session of a user whose password changes', async () => {
      const user = await createUser(app, app.admin, 'editor');
      const session = await app.request<{ refreshToken: string }>('POST', '/api/v1/auth/login', {
        body: { email: user.email, password: user.password },
      });
      await app.request('PUT', `/api/v1/users/${user.id}`, { token: user.token, body: { password: 'another-password' } });
      expectErrorBody(await app.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: session.body.refreshToken } }), 401);
    });

    it('refuses role escalation and project_access changes by a non-admin, even on themselves', async () => {
      const user = await createUser(app, app.admin, 'editor');
      expectErrorBody(await app.request('PUT', `/api/v1/users/${user.id}`, { token: user.token, body: { role: 'admin' } }), 403);
      const project = await createProject(app, app.admin);
      expectErrorBody(
        await app.request('PUT', `/api/v1/users/${user.id}`, {
          token: user.token,
          body: { project_access: [{ projectId: project.id, role: 'admin' }] },
        }),
        403,
      );
      const me = await app.request<SafeUserBody>('GET', '/api/v1/users/me', { token: user.token });
      expect(me.body).toMatchObject({ role: 'editor', project_access: null });
    });

    it("refuses changes to another user's profile by a non-admin with 403", async () => {
      const a = await createUser(app, app.admin, 'editor');
      const b = await createUser(app, app.admin, 'editor');
      expectErrorBody(await app.request('PUT', `/api/v1/users/${b.id}`, { token: a.token, body: { name: 'Hacked' } }), 403);
    });

    it('lets an app.admin change role and project_access', async () => {
      const user = await createUser(app, app.admin, 'viewer');
      const project = await createProject(app, app.admin);
      const response = await app.request<SafeUserBody>('PUT', `/api/v1/users/${user.id}`, {
        token: app.admin,
        body: { role: 'editor', project_access: [{ projectId: project.id, role: 'admin' }] },
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ role: 'editor', project_access: [{ projectId: project.id, role: 'admin' }] });
      const cleared = await app.request<SafeUserBody>('PUT', `/api/v1/users/${user.id}`, { token: app.admin, body: { project_access: null } });
      expect(cleared.body.project_access).toBeNull();
    });

    it('answers 404 for an unknown user (app.admin) and 400 for bad values', async () => {
      expectErrorBody(await app.request('PUT', '/api/v1/users/unknown-id', { token: app.admin, body: { name: 'x' } }), 404);
      const user = await createUser(app, app.admin, 'viewer');
      const put = (body: unknown) => app.request('PUT', `/api/v1/users/${user.id}`, { token: app.admin, body });
      expectErrorBody(await put({ role: 'superuser' }), 400);
      expectErrorBody(await put({ project_access: [{ projectId: 'no-such-project', role: 'admin' }] }), 400);
      expectErrorBody(await put({ project_access: [{ projectId: 'x' }] }), 400);
      expectErrorBody(await put({ project_access: 'all' }), 400);
      expectErrorBody(await put({ email: 'bad' }), 400);
      expectErrorBody(await put({ password: 'short' }), 400);
    });

    it('answers 409 when the new email belongs to someone else', async () => {
      const a = await createUser(app, app.admin, 'editor');
      const b = await createUser(app, app.admin, 'editor');
      expectErrorBody(await app.request('PUT', `/api/v1/users/${a.id}`, { token: a.token, body: { email: b.email } }), 409);
    });

    it('refuses to demote the last admin', async () => {
      const me = await app.request<SafeUserBody>('GET', '/api/v1/users/me', { token: app.admin });
      const others = (await app.request<SafeUserBody[]>('GET', '/api/v1/users', { token: app.admin })).body.filter(
        (user) => user.role === 'admin' && user.id !== me.body.id,
      );
      expect(others).toEqual([]);
      expectErrorBody(await app.request('PUT', `/api/v1/users/${me.body.id}`, { token: app.admin, body: { role: 'editor' } }), 409);
    });

    it('hashes a new password before its transaction, so writers do not wait for bcrypt', async () => {
      const project = await createProject(app, app.admin);
      const user = await createUser(app, app.admin, 'editor');
      // The hash is held until the write below has been answered: had the password change taken
      // the writer first (on SQLite, one transaction at a time), the write could never be answered.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const hashing = new Promise<void>((started) => {
        const hash = PasswordHasher.prototype.hash;
        vi.spyOn(PasswordHasher.prototype, 'hash').mockImplementationOnce(async function (this: PasswordHasher, password: string) {
          started();
          await held;
          return hash.call(this, password);
        });
      });
      const change = app.request('PUT', `/api/v1/users/${user.id}`, { token: user.token, body: { password: 'a-new-password-1' } });
      await hashing;
      ok(await dataClient(app, app.admin, project.slug).mutate([{ create: { _id: 'while-hashing', _type: 'thing' } }]));
      release();
      expect((await change).status).toBe(200);
      expect(await app.login(user.email, 'a-new-password-1')).toEqual(expect.any(String));
    });

    it('refuses API tokens', async () => {
      const project = await createProject(app, app.admin);
      const { token } = await createApiToken(app, app.admin, project.slug, { permissions: ['read', 'write'] });
      const me = await app.request<SafeUserBody>('GET', '/api/v1/users/me', { token: app.admin });
      expectErrorBody(await app.request('PUT', `/api/v1/users/${me.body.id}`, { token, body: { name: 'x' } }), 403);
      expectErrorBody(await app.request('GET', '/api/v1/users', { token }), 403);
    });
  });
});
