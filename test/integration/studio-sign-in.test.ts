import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, ADMIN_PASSWORD, expectErrorBody, startTestApp, useTestApp } from '../helpers/test-app.ts';
import { createProject, createUser, type TestUser } from '../helpers/fixtures.ts';
import { testEngine } from '../helpers/engine.ts';
import { signInThroughPage, tokenOf } from '../helpers/login-page.ts';

/** Sanity Studio signs in through the service's login page and keeps a session token (docs/decisions.md). */
describe(`signing in for Sanity Studio (${testEngine})`, () => {
  const app = useTestApp({ CORS_ORIGINS: 'https://studio.example.com' });
  let editor: TestUser;

  beforeAll(async () => {
    editor = await createUser(app, app.admin, 'editor');
  });

  const me = (token: string) => app.request<Record<string, unknown>>('GET', '/api/v2021-06-07/users/me', { token });

  it('serves a sign-in form that runs no script and cannot be framed', async () => {
    const response = await fetch(`${app.url}/login?origin=${encodeURIComponent(`${app.url}/`)}&projectId=p&withSid=true`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
    const html = await response.text();
    expect(html).toContain('name="password"');
    expect(html).not.toContain('<script');
  });

  it('returns to the origin with a session token of at least 32 characters in the fragment, and sets the image cookie', async () => {
    const origin = `${app.url}/structure/post`;
    const signIn = await signInThroughPage(app, editor.email, editor.password, origin);
    expect(signIn.status).toBe(303);
    expect(signIn.location).toMatch(new RegExp(`^${origin.replace(/[/.]/g, '\\$&')}#token=sess_[A-Za-z0-9_-]{43}$`));
    expect(tokenOf(signIn).length).toBeGreaterThanOrEqual(32);
    const cookie = signIn.setCookies.find((line) => line.startsWith('cms_session='));
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/Path=\/api/);
    expect((await me(tokenOf(signIn))).body).toMatchObject({ id: editor.id, email: editor.email });
  });

  it('returns to an origin CORS_ORIGINS or a project allows with credentials, and to no other', async () => {
    expect((await signInThroughPage(app, editor.email, editor.password, 'https://studio.example.com/desk')).status).toBe(303);
    const elsewhere = await signInThroughPage(app, editor.email, editor.password, 'https://evil.example.net/');
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.location).toBeNull();
    const project = await createProject(app, app.admin);
    const add = (origin: string, allowCredentials: boolean) =>
      app.request('POST', `/api/v1/projects/${project.slug}/cors`, { token: app.admin, body: { origin, allowCredentials } });
    expect((await add('https://other.example.org', false)).status).toBe(201);
    expect((await signInThroughPage(app, editor.email, editor.password, 'https://other.example.org/')).status).toBe(400);
    expect((await add('https://trusted.example.org', true)).status).toBe(201);
    expect((await signInThroughPage(app, editor.email, editor.password, 'https://trusted.example.org/')).status).toBe(303);
  });

  it('answers a wrong password with the form again (401), and a post without the form cookie with 400', async () => {
    const wrong = await signInThroughPage(app, editor.email, 'not-the-password', `${app.url}/`);
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('Wrong email or password');
    expect(wrong.location).toBeNull();
    const forged = await fetch(`${app.url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ origin: `${app.url}/`, email: editor.email, password: editor.password, csrf: 'guessed' }).toString(),
    });
    expect(forged.status).toBe(400);
  });

  it('ends the session when Studio signs out, as its bearer token, with no body', async () => {
    const token = tokenOf(await signInThroughPage(app, editor.email, editor.password, `${app.url}/`));
    const out = await app.request('POST', '/api/v2021-06-07/auth/logout', { token });
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie().some((line) => line.startsWith('cms_session=;'))).toBe(true);
    expectErrorBody(await me(token), 401);
  });

  it('ends every session when the password changes, and applies a role change at once', async () => {
    const user = await createUser(app, app.admin, 'editor');
    const token = tokenOf(await signInThroughPage(app, user.email, user.password, `${app.url}/`));
    expect((await me(token)).body).toMatchObject({ roles: [{ name: 'editor' }] });
    expect((await app.request('PUT', `/api/v1/users/${user.id}`, { token: app.admin, body: { role: 'viewer' } })).status).toBe(200);
    expect((await me(token)).body).toMatchObject({ roles: [{ name: 'viewer' }] });
    expect((await app.request('PUT', `/api/v1/users/${user.id}`, { token: app.admin, body: { password: 'a-new-password-1' } })).status).toBe(200);
    expectErrorBody(await me(token), 401);
  });

  it('counts Studio sessions against their own, larger rate limit', async () => {
    const limited = await startTestApp({ RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_SESSION_PER_MINUTE: '40' });
    try {
      const token = tokenOf(await signInThroughPage(limited, ADMIN_EMAIL, ADMIN_PASSWORD, `${limited.url}/`));
      const statuses = [];
      for (let i = 0; i < 20; i++) statuses.push((await limited.request('GET', '/api/v2021-06-07/users/me', { token })).status);
      expect(statuses.every((status) => status === 200)).toBe(true);
      const response = await limited.request('GET', '/api/v2021-06-07/users/me', { token });
      expect(response.headers.get('x-ratelimit-limit')).toBe('40');
      const jwt = await limited.login();
      const jwtStatuses = [];
      for (let i = 0; i < 6; i++) jwtStatuses.push((await limited.request('GET', '/api/v1/users/me', { token: jwt })).status);
      expect(jwtStatuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
      expect(jwtStatuses[5]).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it('lasts SESSION_EXPIRES_IN', async () => {
    const brief = await startTestApp({ SESSION_EXPIRES_IN: '1s' });
    try {
      const token = tokenOf(await signInThroughPage(brief, ADMIN_EMAIL, ADMIN_PASSWORD, `${brief.url}/`));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expectErrorBody(await brief.request('GET', '/api/v2021-06-07/users/me', { token }), 401);
    } finally {
      await brief.close();
    }
  });
});
