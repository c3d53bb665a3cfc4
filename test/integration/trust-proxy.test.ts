import { describe, expect, it } from 'vitest';
import { startTestApp } from '../helpers/test-app.ts';
import { testEngine } from '../helpers/engine.ts';

/** /auth/* is limited per client address: behind a load balancer, that address is the proxy's unless trusted. */
describe(`client address behind a proxy (${testEngine})`, () => {
  async function remainingFor(env: Record<string, string>, clients: string[]): Promise<number[]> {
    const app = await startTestApp({ RATE_LIMIT_AUTH_PER_MINUTE: '50', ...env });
    try {
      const remaining: number[] = [];
      for (const client of clients) {
        const response = await app.request('POST', '/api/v1/auth/logout', { body: { refreshToken: 'x' }, headers: { 'x-forwarded-for': client } });
        expect(response.status).toBe(200);
        remaining.push(Number(response.headers.get('x-ratelimit-remaining')));
      }
      return remaining;
    } finally {
      await app.close();
    }
  }

  it('ignores X-Forwarded-For by default: a client cannot forge its way to a fresh counter', async () => {
    const remaining = await remainingFor({}, ['203.0.113.5', '203.0.113.6', '203.0.113.7']);
    expect(remaining[0]! - remaining[2]!).toBe(2);
  });

  it('with TRUST_PROXY naming the proxy, counts each forwarded client on its own', async () => {
    expect(await remainingFor({ TRUST_PROXY: '127.0.0.1' }, ['203.0.113.5', '203.0.113.6', '203.0.113.5'])).toEqual([49, 49, 48]);
    expect(await remainingFor({ TRUST_PROXY: '1' }, ['203.0.113.5', '203.0.113.6'])).toEqual([49, 49]);
  });

  it('believes only the proxies TRUST_PROXY names', async () => {
    const remaining = await remainingFor({ TRUST_PROXY: '10.0.0.0/8' }, ['203.0.113.5', '203.0.113.6']);
    expect(remaining[0]! - remaining[1]!).toBe(1);
  });
});
