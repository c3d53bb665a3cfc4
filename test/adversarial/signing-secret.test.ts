import { statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, decodeJwt } from 'jose';
import { ADMIN_EMAIL, expectErrorBody, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createUser } from '../helpers/fixtures.ts';
import { testEngine } from '../helpers/engine.ts';
import { SIGNING_SECRET_FILE } from '../../src/identity/signing-secret.ts';

/** The string older versions signed with when JWT_SECRET was unset: public, so it must sign nothing. */
const FORMER_DEFAULT = 'insecure-development-secret-change-me';

describe(`the signing secret without JWT_SECRET (${testEngine})`, () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ JWT_SECRET: '' });
  });
  afterAll(async () => app.close());

  it('is generated on the first start, random, and readable by its owner only', () => {
    const file = join(app.db.dataDir, SIGNING_SECRET_FILE);
    const secret = readFileSync(file, 'utf8').trim();
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(secret).not.toBe(FORMER_DEFAULT);
    expect(statSync(file).mode & 0o077).toBe(0);
  });

  it('refuses an admin token a viewer signed with the former public default', async () => {
    const admin = await app.login();
    const viewer = await createUser(app, admin, 'viewer');
    const forged = await new SignJWT({ email: ADMIN_EMAIL, role: 'admin', type: 'access' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(decodeJwt(admin).sub!)
      .setIssuedAt()
      .setExpirationTime('15m')
      .sign(new TextEncoder().encode(FORMER_DEFAULT));
    const created = await app.request('POST', '/api/v1/users', {
      token: forged,
      body: { email: 'intruder@example.com', name: 'Intruder', password: 'intruder-password', role: 'admin' },
    });
    expectErrorBody(created, 401);
    expectErrorBody(await app.request('GET', '/api/v1/users', { token: viewer.token }), 403);
  });

  it('is kept across restarts, so sessions survive them', async () => {
    const token = await app.login();
    await app.close({ keepDatabase: true });
    app = await startTestApp({ JWT_SECRET: '' }, { db: app.db });
    expect((await app.request('GET', '/api/v1/users/me', { token })).status).toBe(200);
  });
});
