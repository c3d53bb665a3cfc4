import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/engine.ts';
import { launch, processDatabaseUrl, run, waitFor } from '../helpers/cli.ts';
import { migrations } from '../../src/store/migrations/index.ts';

const versions = migrations.map((migration) => migration.version);
const latest = Math.max(...versions);

describe(`cms command line (${testEngine})`, () => {
  let db: TestDatabase | undefined;
  afterEach(async () => db?.drop());

  it('migrates, then reports the schema up to date', async () => {
    db = createTestDatabase();
    const env = { DATA_DIR: db.dataDir, DATABASE_URL: await processDatabaseUrl(db) };
    const first = await run(['migrate'], env);
    expect(first.stderr).toBe('');
    expect(first.stdout).toContain(`applied ${versions.join(', ')} (schema version ${latest})`);
    expect((await run(['migrate'], env)).stdout).toContain(`up to date (schema version ${latest})`);
  });

  it('creates a user with the password from CMS_USER_PASSWORD, and refuses without one and without a terminal', async () => {
    db = createTestDatabase();
    const env = { DATA_DIR: db.dataDir, DATABASE_URL: await processDatabaseUrl(db) };
    const created = await run(['user', 'create', '--email', 'Ed@Example.com', '--name', 'Ed', '--role', 'viewer'], {
      ...env,
      CMS_USER_PASSWORD: 'cli-password-1',
    });
    expect(created.stdout).toMatch(/Created viewer ed@example\.com/);
    const refused = await run(['user', 'create', '--email', 'x@example.com', '--name', 'X'], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('CMS_USER_PASSWORD');
    const badRole = await run(['user', 'create', '--email', 'y@example.com', '--name', 'Y', '--role', 'root'], {
      ...env,
      CMS_USER_PASSWORD: 'cli-password-1',
    });
    expect(badRole.code).not.toBe(0);
    expect(badRole.stderr).toMatch(/root/);
  });

  it('serves: prints the URL and, on the first start, a generated admin password that signs in', async () => {
    db = createTestDatabase();
    const server = launch(['serve'], { DATA_DIR: db.dataDir, DATABASE_URL: await processDatabaseUrl(db), PORT: '0' });
    try {
      const url = (await waitFor(server.output, /listening on (http:\/\/\S+)/))[1]!;
      const password = (await waitFor(server.output, /shown only this once\.\n\s+(\S+)\n/))[1]!;
      expect(server.output.stdout).toMatch(/API docs: http:\/\/127\.0\.0\.1:\d+\/api\/v1\/docs/);
      const login = await fetch(`${url}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@localhost.localdomain', password }),
      });
      expect(login.status).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect((await server.exited).code).toBe(0);
  });

  it('refuses to start in production on the default JWT secret', async () => {
    db = createTestDatabase();
    const result = await run(['serve'], { DATA_DIR: db.dataDir, DATABASE_URL: await processDatabaseUrl(db), NODE_ENV: 'production' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('JWT_SECRET');
  });
});
