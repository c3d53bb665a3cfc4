import { describe, expect, it } from 'vitest';
import { SignJWT, decodeJwt } from 'jose';
import { ADMIN_EMAIL, ADMIN_PASSWORD, JWT_SECRET, expectErrorBody, useTestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject, createUser } from '../helpers/fixtures.ts';
import { testEngine } from '../helpers/engine.ts';

interface SessionBody {
  accessToken: string;
  refreshToken: string;
  user: Record<string, unknown>;
}

describe(`authentication (${testEngine})`, () => {
  const app = useTestApp();
  const key = new TextEncoder().encode(JWT_SECRET);

  const login = (body: unknown) => app.request<SessionBody>('POST', '/api/v1/auth/login', { body });

  it('logs in and returns an access token with the documented claims', async () => {
    const response = await login({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    expect(response.status).toBe(200);
    const { accessToken, refreshToken, user } = response.body;
    expect(Object.keys(user).sort()).toEqual(['created_at', 'email', 'id', 'name', 'role', 'updated_at']);
    expect(user.email).toBe(ADMIN_EMAIL);
    expect(refreshToken.length).toBeGreaterThanOrEqual(43);
    const claims = decodeJwt(accessToken);
    expect(claims).toMatchObject({ sub: user.id, email: ADMIN_EMAIL, role: 'admin', type: 'access' });
    expect(claims.exp! - claims.iat!).toBe(15 * 60);
    const header = JSON.parse(Buffer.from(accessToken.split('.')[0]!, 'base64url').toString());
    expect(header.alg).toBe('HS256');
  });

  it('accepts the email in any case', async () => {
    expect((await login({ email: ADMIN_EMAIL.toUpperCase(), password: ADMIN_PASSWORD })).status).toBe(200);
  });

  it('refuses wrong passwords and unknown emails alike with 401', async () => {
    const wrong = expectErrorBody(await login({ email: ADMIN_EMAIL, password: 'nope-nope-nope' }), 401);
    const unknown = expectErrorBody(await login({ email: 'nobody@example.com', password: 'nope-nope-nope' }), 401);
    expect(wrong.message).toBe(unknown.message);
  });

  it.each([
    [{ email: ADMIN_EMAIL }, 'password'],
    [{ password: 'x' }, 'email'],
    [{}, 'email'],
    [{ email: 42, password: 'x' }, 'email'],
    [{ email: ADMIN_EMAIL, password: ['x'] }, 'password'],
  ])('answers 400 naming the field for %j', async (body, field) => {
    const error = expectErrorBody(await login(body), 400);
    expect(error.message).toContain(field);
  });

  it('answers 400 for malformed JSON and for a non-object body', async () => {
    expectErrorBody(
      await app.request('POST', '/api/v1/auth/login', { rawBody: '{"email":', headers: { 'content-type': 'application/json' } }),
      400,
    );
    expectErrorBody(await login([1, 2]), 400);
    expectErrorBody(await app.request('POST', '/api/v1/auth/login', { headers: { 'content-type': 'application/json' } }), 400);
  });

  it('answers 415 with the standard body for an unsupported content type', async () => {
    expectErrorBody(
      await app.request('POST', '/api/v1/auth/login', { rawBody: '<login/>', headers: { 'content-type': 'application/xml' } }),
      415,
    );
  });

  describe('refresh tokens', () => {
    it('rotate: the new pair works and the used token is refused', async () => {
      const first = (await login({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).body;
      const second = await app.request<SessionBody>('POST', '/api/v1/auth/refresh', { body: { refreshToken: first.refreshToken } });
      expect(second.status).toBe(200);
      expect(second.body.refreshToken).not.toBe(first.refreshToken);
      expect((await app.request('GET', '/api/v1/users/me', { token: second.body.accessToken })).status).toBe(200);
      expectErrorBody(await app.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: first.refreshToken } }), 401);
    });

    it('revoke the whole family when a used token is presented again', async () => {
      const first = (await login({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).body;
      const second = (await app.request<SessionBody>('POST', '/api/v1/auth/refresh', { body: { refreshToken: first.refreshToken } })).body;
      expectErrorBody(await app.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: first.refreshToken } }), 401);
      // The legitimate holder's newer token died with the stolen one.
      expectErrorBody(await app.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: second.refreshToken } }), 401);
    });

    it('let exactly one of two concurrent refreshes with the same token win', async () => {
      const { refreshToken } = (await login({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).body;
      const results = await Promise.all(
        [1, 2, 3].map(() => app.request('POST', '/api/v1/auth/refresh', { body: { refreshToken } })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401]);
    });

    it('are stored only as SHA-256 hashes', async () => {
      const { refreshToken } = (await login({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).body;
      const { sha256Hex } = await import('../../src/identity/secrets.ts');
      const record = await app.services.store.refreshTokens.findByHash(sha256Hex(refreshToken));
      expect(record?.tokenHash).toBe(sha256Hex(refreshToken));
      expect(JSON.stringify(record)).not.toContain(refreshToken);
    });

    it('answer 400 when missing or wrong-typed and 401 when unknown', async () => {
      expectErrorBody(await app.request('POST', '/api/v1/auth/refresh', { body: {} }), 400);
      expectErrorBody(await app.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: 7 } }), 400);
      expectErrorBody(await app.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: 'not-a-token' } }), 401);
    });

    it('expire after JWT_REFRESH_EXPIRES_IN', async () => {
      const { refreshToken } = (await login({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).body;
      const { sha256Hex } = await import('../../src/identity/secrets.ts');
      const record = await app.services.store.refreshTokens.findByHash(sha256Hex(refreshToken));
      const lifetime = Date.parse(record!.expiresAt) - Date.parse(record!.createdAt);
      expect(lifetime).toBe(7 * 24 * 3600 * 1000);
    });
  });

  describe('logout', () => {
    it('revokes the refresh token', async () => {
      const { refreshToken } = (await login({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).body;
      const out = await app.request('POST', '/api/v1/auth/logout', { body: { refreshToken } });
      expect(out).toMatchObject({ status: 200, body: { ok: true } });
      expectErrorBody(await app.request('POST', '/api/v1/auth/refresh', { body: { refreshToken } }), 401);
    });

    it('answers ok for an unknown token and 400 without one', async () => {
      expect((await app.request('POST', '/api/v1/auth/logout', { body: { refreshToken: 'unknown' } })).status).toBe(200);
      expectErrorBody(await app.request('POST', '/api/v1/auth/logout', { body: {} }), 400);
    });
  });

  describe('bearer credentials', () => {
    const me = (token: string) => app.request('GET', '/api/v1/users/me', { token });

    it('refuses a missing or malformed Authorization header', async () => {
      expectErrorBody(await app.request('GET', '/api/v1/users/me'), 401);
      expectErrorBody(await app.request('GET', '/api/v1/users/me', { headers: { authorization: 'Basic abc' } }), 401);
    });

    it('refuses an expired access token', async () => {
      const admin = decodeJwt(await app.login());
      const expired = await new SignJWT({ email: ADMIN_EMAIL, role: 'admin', type: 'access' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(admin.sub!)
        .setIssuedAt(Math.floor(Date.now() / 1000) - 3600)
        .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
        .sign(key);
      expect(expectErrorBody(await me(expired), 401).message).toMatch(/expired/i);
    });

    it('refuses a token signed with another secret', async () => {
      const admin = decodeJwt(await app.login());
      const forged = await new SignJWT({ email: ADMIN_EMAIL, role: 'admin', type: 'access' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(admin.sub!)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode('another-secret-another-secret-another'));
      expectErrorBody(await me(forged), 401);
    });

    it('refuses a tampered payload', async () => {
      const [header, , signature] = (await app.login()).split('.');
      const claims = decodeJwt(await app.login());
      const payload = Buffer.from(JSON.stringify({ ...claims, role: 'admin', email: 'evil@example.com' })).toString('base64url');
      expectErrorBody(await me(`${header}.${payload}.${signature}`), 401);
    });

    it('refuses alg none', async () => {
      const claims = decodeJwt(await app.login());
      const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
      const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
      expectErrorBody(await me(`${header}.${payload}.`), 401);
    });

    it('refuses a JWT without type access, and a refresh token used as an access token', async () => {
      const claims = decodeJwt(await app.login());
      const refreshTyped = await new SignJWT({ email: ADMIN_EMAIL, role: 'admin', type: 'refresh' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(claims.sub!)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(key);
      expectErrorBody(await me(refreshTyped), 401);
      const { refreshToken } = (await login({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).body;
      expectErrorBody(await me(refreshToken), 401);
    });

    it('refuses a token of a deleted-from-store user and an unknown API token', async () => {
      const ghost = await new SignJWT({ email: 'ghost@example.com', role: 'admin', type: 'access' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('00000000-0000-0000-0000-000000000000')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(key);
      expectErrorBody(await me(ghost), 401);
      expectErrorBody(await me('svc_doesnotexist'), 401);
    });

    it('takes the role from the store, not from the token', async () => {
      const adminToken = await app.login();
      const viewer = await createUser(app, adminToken, 'viewer');
      // A token minted while the user was a viewer cannot create users even if its claim says admin.
      const claims = decodeJwt(viewer.token);
      const inflated = await new SignJWT({ email: viewer.email, role: 'admin', type: 'access' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(claims.sub!)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(key);
      expectErrorBody(await app.request('GET', '/api/v1/users', { token: inflated }), 403);
    });

    it('accepts an API token as bearer credential but gives it no user profile', async () => {
      const adminToken = await app.login();
      const project = await createProject(app, adminToken);
      const { token } = await createApiToken(app, adminToken, project.slug);
      expect(token).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
      expectErrorBody(await me(token), 403);
      expect((await app.request('GET', '/api/v1/projects', { token })).status).toBe(200);
    });
  });
});
