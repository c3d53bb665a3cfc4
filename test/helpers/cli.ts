import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TestDatabase } from './engine.ts';

const CLI = fileURLToPath(new URL('../../bin/cms.js', import.meta.url));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The database URL a separate process uses: for PostgreSQL the test schema goes in `options`. */
export async function processDatabaseUrl(db: TestDatabase): Promise<string> {
  if (!db.schema) return db.databaseUrl;
  const client = new pg.Client({ connectionString: db.databaseUrl });
  await client.connect();
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${db.schema}`);
  await client.end();
  const url = new URL(db.databaseUrl);
  url.searchParams.set('options', `-c search_path=${db.schema}`);
  return url.toString();
}

export function launch(args: string[], env: Record<string, string>) {
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
export function run(args: string[], env: Record<string, string>): Promise<Run> {
  return launch(args, env).exited;
}

/** Polls the output of a running process until `pattern` matches. */
export async function waitFor(output: { stdout: string }, pattern: RegExp): Promise<RegExpExecArray> {
  for (let i = 0; i < 200; i++) {
    const match = pattern.exec(output.stdout);
    if (match) return match;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ${pattern} in ${output.stdout}`);
}

