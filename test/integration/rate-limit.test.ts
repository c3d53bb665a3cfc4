import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { expectErrorBody, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testEngine } from '../helpers/engine.ts';

const REDIS_URL = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379/15';

/** Windows are aligned to the minute: start a burst early in one, so it cannot straddle two. */
async function atStartOfWindow(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 5_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

function expectHeaders(response: { headers: Headers }, limit: number) {
  const reset = Number(response.headers.get('x-ratelimit-reset'));
  expect(Number(response.headers.get('x-ratelimit-limit'))).toBe(limit);
  expect(Number(response.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
  // Unix seconds, within the next minute.
  const now = Date.now() / 1000;
  expect(reset).toBeGreaterThan(now);
  expect(reset).toBeLessThanOrEqual(Math.ceil(now) + 60);
  return Number(response.headers.get('x-ratelimit-remaining'));
}

for (const counters of ['memory', 'redis'] as const) {
  describe(`rate limits with ${counters} counters (${testEngine})`, () => {
    let app: TestApp;
    const env = {
      RATE_LIMIT_PER_MINUTE: '8',
      RATE_LIMIT_AUTH_PER_MINUTE: '3',
      ...(counters === 'redis' ? { REDIS_URL, REDIS_KEY_PREFIX: `test-${randomBytes(4).toString('hex')}:` } : {}),
    };

    beforeAll(async () => {
      app = await startTestApp(env);
    });
    afterAll(async () => app.close());

    it('limits /auth/* separately, by address, with 429, Retry-After and the standard body', async () => {
      await atStartOfWindow();
      const attempts = [];
      for (let i = 0; i < 4; i++) {
        attempts.push(await app.request('POST', '/api/v1/auth/login', { body: { email: 'x@example.com', password: 'wrong-password' } }));
      }
      expect(attempts.map((r) => r.status)).toEqual([401, 401, 401, 429]);
      expect(attempts.map((r) => expectHeaders(r, 3))).toEqual([2, 1, 0, 0]);
      const limited = attempts[3]!;
      expectErrorBody(limited, 429);
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // The general API counter is untouched by the auth burst.
      const health = await app.request('GET', '/api/v1/health');
      expect(health.status).toBe(200);
      expectHeaders(health, 8);
    });

    /** A signed-in user made through the services, so the HTTP auth limit is not spent. */
    async function signedInUser(): Promise<string> {
      const email = `rl-${randomBytes(4).toString('hex')}@example.com`;
      await app.services.users.createUnchecked({ email, name: 'Rate', password: 'rate-limit-password', role: 'viewer' });
      return (await app.services.auth.login(email, 'rate-limit-password')).accessToken;
    }

    it('counts each principal on its own', async () => {
      await atStartOfWindow();
      const [a, b] = [await signedInUser(), await signedInUser()];
      const remaining: number[] = [];
      for (let i = 0; i < 8; i++) {
        const response = await app.request('GET', '/api/v1/users/me', { token: a });
        expect(response.status).toBe(200);
        remaining.push(expectHeaders(response, 8));
      }
      expect(remaining).toEqual([7, 6, 5, 4, 3, 2, 1, 0]);
      expectErrorBody(await app.request('GET', '/api/v1/users/me', { token: a }), 429);
      const other = await app.request('GET', '/api/v1/users/me', { token: b });
      expect(other.status).toBe(200);
      expect(expectHeaders(other, 8)).toBe(7);
    });

    it('puts the headers on every response, errors included, and limits unknown routes too', async () => {
      await atStartOfWindow();
      const token = await signedInUser();
      const statuses: number[] = [];
      for (let i = 0; i < 9; i++) {
        const response = await app.request('GET', '/api/v1/no-such-route', { token });
        expectHeaders(response, 8);
        statuses.push(response.status);
      }
      expect(statuses).toEqual([404, 404, 404, 404, 404, 404, 404, 404, 429]);
      const malformed = await app.request('PUT', '/api/v1/users/x', {
        token: await signedInUser(),
        rawBody: '{',
        headers: { 'content-type': 'application/json' },
      });
      expect(malformed.status).toBe(400);
      expectHeaders(malformed, 8);
    });
  });
}

describe(`rate limits shared through Redis by two instances (${testEngine})`, () => {
  it('counts a client once across instances', async () => {
    const env = { RATE_LIMIT_PER_MINUTE: '6', REDIS_URL, REDIS_KEY_PREFIX: `test-${randomBytes(4).toString('hex')}:` };
    const [one, two] = [await startTestApp(env), await startTestApp(env)];
    try {
      await atStartOfWindow();
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await (i % 2 ? two : one).request('GET', '/api/v1/health')).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
    } finally {
      await one.close();
      await two.close();
    }
  });
});
