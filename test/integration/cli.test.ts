import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/engine.ts';

const CLI = fileURLToPath(new URL('../../bin/cms.js', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The database URL a separate process uses: for PostgreSQL the test schema goes in `options`. */
async function processDatabaseUrl(db: TestDatabase): Promise<string> {
  if (!db.schema) return db.databaseUrl;
  const client = new pg.Client({ connectionString: db.databaseUrl });
  await client.connect();
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${db.schema}`);
  await client.end();
  const url = new URL(db.databaseUrl);
  url.searchParams.set('options', `-c search_path=${db.schema}`);
  return url.toString();
}

function launch(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', BCRYPT_ROUNDS: '4', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<Run>((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, ...output });
    });
  });
  return { child, output, exited };
}

/** Runs the CLI to completion. */
function run(args: string[], env: Record<string, string>): Promise<Run> {
  return launch(args, env).exited;
}

/** Polls the output of a running process until `pattern` matches. */
async function waitFor(output: { stdout: string }, pattern: RegExp): Promise<RegExpExecArray> {
  for (let i = 0; i < 200; i++) {
    const match = pattern.exec(output.stdout);
    if (match) return match;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ${pattern} in ${output.stdout}`);
}

describe(`cms command line (${testEngine})`, () => {
  let db: TestDatabase | undefined;
  afterEach(async () => db?.drop());

  it('migrates, then reports the schema up to date', async () => {
    db = createTestDatabase();
    const env = { DATA_DIR: db.dataDir, DATABASE_URL: await processDatabaseUrl(db) };
    const first = await run(['migrate'], env);
    expect(first.stderr).toBe('');
    expect(first.stdout).toMatch(/applied 1, 2, 3 \(schema version 3\)/);
    expect((await run(['migrate'], env)).stdout).toMatch(/up to date \(schema version 3\)/);
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
