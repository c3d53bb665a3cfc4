import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ADMIN_EMAIL, ADMIN_PASSWORD, JWT_SECRET, httpRequest, type ApiResponse, type RequestOptions } from './test-app.ts';
import type { Run } from './cli.ts';

const CLI = fileURLToPath(new URL('../../bin/cms.js', import.meta.url));

/** A real `cms serve` process on a random loopback port, and a small client for it. */
export interface ServerProcess {
  url: string;
  port: number;
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  /** Resolves when the process has exited (whatever the reason). */
  exited: Promise<Run>;
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  login(email?: string, password?: string): Promise<string>;
  /** SIGKILL unless already gone; resolves when it has exited. */
  kill(): Promise<Run>;
}

/**
 * Spawns `cms serve` with the test defaults (cheap bcrypt, high limits, the test JWT secret and
 * admin, so several processes accept each other's tokens) and waits until it listens.
 */
export async function startServerProcess(env: Record<string, string>, options: { startTimeoutMs?: number } = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      BCRYPT_ROUNDS: '4',
      LOG_LEVEL: 'warn',
      JWT_SECRET,
      ADMIN_EMAIL,
      ADMIN_PASSWORD,
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_AUTH_PER_MINUTE: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<Run>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, ...output }));
  });
  let gone = false;
  void exited.finally(() => (gone = true));

  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  let url: string | undefined;
  while (!url) {
    url = /listening on (https?:\/\/\S+?)\/api\/v1/.exec(output.stdout)?.[1];
    if (url) break;
    if (gone || Date.now() > deadline) {
      child.kill('SIGKILL');
      const run = await exited;
      throw new Error(`cms serve did not start (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const base = url;

  const request = <T>(method: string, path: string, options: RequestOptions = {}) => httpRequest<T>(base, method, path, options);

  return {
    url: base,
    port: Number(new URL(base).port),
    child,
    output,
    exited,
    request,
    async login(email = ADMIN_EMAIL, password = ADMIN_PASSWORD) {
      const response = await request<{ accessToken: string }>('POST', '/api/v1/auth/login', { body: { email, password } });
      if (response.status !== 200) throw new Error(`login of ${email} failed: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body.accessToken;
    },
    async kill() {
      if (!gone) child.kill('SIGKILL');
      return exited;
    },
  };
}
