// Access tokens remember what they verified; expiry and signatures still decide every use.
import { describe, expect, it } from 'vitest';
import { AccessTokens } from '../../src/identity/access-tokens.ts';

const SECRET = 'unit-test-secret-that-is-long-enough-0123456789';
const USER = { id: 'u1', email: 'u1@example.com', role: 'editor' as const };

describe('access tokens', () => {
  it('accepts a verified token again until it expires, then refuses it as expired', async () => {
    let now = Date.UTC(2026, 0, 1);
    const tokens = new AccessTokens(SECRET, 60, () => now);
    const token = await tokens.issue(USER);
    expect(await tokens.verify(token)).toMatchObject({ sub: 'u1', role: 'editor' });
    now += 30_000;
    expect(await tokens.verify(token)).toMatchObject({ sub: 'u1' });
    now += 31_000;
    await expect(tokens.verify(token)).rejects.toMatchObject({ code: 'TOKEN_EXPIRED' });
  });

  it('refuses a token whose text differs from a verified one, and one signed with another key', async () => {
    const tokens = new AccessTokens(SECRET, 60);
    const token = await tokens.issue(USER);
    await tokens.verify(token);
    const [header, payload, signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), role: 'admin' })).toString('base64url');
    await expect(tokens.verify(`${header}.${forged}.${signature}`)).rejects.toMatchObject({ statusCode: 401 });
    const other = await new AccessTokens(`${SECRET}-other`, 60).issue(USER);
    await expect(tokens.verify(other)).rejects.toMatchObject({ statusCode: 401 });
  });
});
