import { describe, expect, it } from 'vitest';
import { expectErrorBody, useTestApp, type ApiResponse } from '../helpers/test-app.ts';
import { createProject, createUser } from '../helpers/fixtures.ts';
import { testEngine } from '../helpers/engine.ts';
import { MAX_CORS_ORIGINS_PER_PROJECT } from '../../src/projects/cors-service.ts';

// Requests that race to take something only one may have (a slug, an email, an origin), or to
// leave a rule broken (no admin left, more origins than a project may have). A check before the write cannot decide alone: between
// check and write another request may pass the same check. Whoever loses gets a 409, never a 500,
// and the rule still holds afterwards.
const RACERS = 8;

describe(`requests racing for one name (${testEngine})`, () => {
  const app = useTestApp();

  async function race(send: (i: number) => Promise<ApiResponse>): Promise<{ won: ApiResponse[]; lost: ApiResponse[] }> {
    const answers = await Promise.all(Array.from({ length: RACERS }, (_, i) => send(i)));
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(500);
    const won = answers.filter((answer) => answer.status < 300);
    const lost = answers.filter((answer) => answer.status >= 300);
    for (const answer of lost) expectErrorBody(answer, 409);
    return { won, lost };
  }

  it('creates one project of a slug', async () => {
    const { won } = await race(() => app.request('POST', '/api/v1/projects', { token: app.admin, body: { name: 'Racing', slug: 'racing' } }));
    expect(won).toHaveLength(1);
  });

  it('creates one user of an email', async () => {
    const body = { email: 'racer@example.com', name: 'Racer', password: 'password-123456' };
    const { won } = await race(() => app.request('POST', '/api/v1/users', { token: app.admin, body }));
    expect(won).toHaveLength(1);
  });

  it('gives one email to one user when several are changed to it at once', async () => {
    const users = await Promise.all(Array.from({ length: RACERS }, () => createUser(app, app.admin, 'editor')));
    const { won } = await race((i) => app.request('PUT', `/api/v1/users/${users[i]!.id}`, { token: app.admin, body: { email: 'wanted@example.com' } }));
    expect(won).toHaveLength(1);
    const listed = await app.request<{ email: string }[]>('GET', '/api/v1/users', { token: app.admin });
    expect(listed.body.filter((user) => user.email === 'wanted@example.com')).toHaveLength(1);
  });

  it('allows one origin once in a project', async () => {
    const project = await createProject(app, app.admin);
    const { won } = await race(() => app.request('POST', `/api/v1/projects/${project.slug}/cors`, { token: app.admin, body: { origin: 'https://racing.example.com' } }));
    expect(won).toHaveLength(1);
    const listed = await app.request<unknown[]>('GET', `/api/v1/projects/${project.slug}/cors`, { token: app.admin });
    expect(listed.body).toHaveLength(1);
  });

  it('keeps a project within its origin limit when different origins are added at once', async () => {
    const project = await createProject(app, app.admin);
    const cors = `/api/v1/projects/${project.slug}/cors`;
    for (let i = 0; i < MAX_CORS_ORIGINS_PER_PROJECT - 2; i++) {
      expect((await app.request('POST', cors, { token: app.admin, body: { origin: `https://site-${i}.example.com` } })).status).toBe(201);
    }
    const answers = await Promise.all(
      Array.from({ length: RACERS }, (_, i) => app.request('POST', cors, { token: app.admin, body: { origin: `https://late-${i}.example.com` } })),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(2);
    for (const answer of answers.filter((answer) => answer.status !== 201)) expect(expectErrorBody(answer, 400).message).toContain('at most');
    const listed = await app.request<unknown[]>('GET', cors, { token: app.admin });
    expect(listed.body).toHaveLength(MAX_CORS_ORIGINS_PER_PROJECT);
  });

  it('keeps an admin when the admins demote each other at once', async () => {
    const admins = await Promise.all(Array.from({ length: 2 }, () => createUser(app, app.admin, 'admin')));
    // The first admin steps down, so these two are the only admins left: each demotes the other.
    const first = await app.request<{ id: string }>('GET', '/api/v1/users/me', { token: app.admin });
    expect((await app.request('PUT', `/api/v1/users/${first.body.id}`, { token: admins[0]!.token, body: { role: 'editor' } })).status).toBe(200);
    const answers = await Promise.all([
      app.request('PUT', `/api/v1/users/${admins[1]!.id}`, { token: admins[0]!.token, body: { role: 'editor' } }),
      app.request('PUT', `/api/v1/users/${admins[0]!.id}`, { token: admins[1]!.token, body: { role: 'editor' } }),
    ]);
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(500);
    const listed = await app.request<{ role: string }[]>('GET', '/api/v1/users', { token: answers[0]!.status === 200 ? admins[0]!.token : admins[1]!.token });
    expect(listed.body.filter((user) => user.role === 'admin')).toHaveLength(1);
  });
});
