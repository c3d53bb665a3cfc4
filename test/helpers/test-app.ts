import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/logging.ts';
import { closeServices, createServices, startWorkers } from '../../src/composition.ts';
import { buildApp } from '../../src/http/app.ts';
import type { TlsCredentials } from '../../src/http/tls.ts';
import { bootstrapAdmin } from '../../src/identity/bootstrap-admin.ts';
import type { Services } from '../../src/services.ts';
import { createTestDatabase, type TestDatabase } from './engine.ts';

export const ADMIN_EMAIL = 'admin@example.com';
export const ADMIN_PASSWORD = 'admin-password-1';
export const JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as-is, for malformed bodies. */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestApp {
  url: string;
  app: FastifyInstance;
  services: Services;
  db: TestDatabase;
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  login(email?: string, password?: string): Promise<string>;
  /** Stops the server; the database is dropped unless `keepDatabase` (to start again on it). */
  close(options?: { keepDatabase?: boolean }): Promise<void>;
}

/**
 * Boots the real app on a real HTTP server on a random port, on a fresh database (SQLite file, or
 * a PostgreSQL schema when TEST_DATABASE_URL is set). bcrypt is cheap and limits are high unless a
 * test overrides them through `env`.
 */
export interface TestAppOptions {
  /** Start the background workers (scheduler, webhook delivery), as the server does. */
  workers?: boolean;
  /** Run on this database (another instance's, or a restarted one's) instead of a fresh one. */
  db?: TestDatabase;
  /** Serve HTTPS with HTTP/2 (url is then https://). */
  tls?: TlsCredentials;
  /** Log here (by default nowhere, unless TEST_LOG_LEVEL says a level). */
  log?: Logger;
}

export async function startTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const db = options.db ?? createTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: db.dataDir,
    DATABASE_URL: db.databaseUrl,
    BCRYPT_ROUNDS: '4',
    JWT_SECRET,
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_AUTH_PER_MINUTE: '100000',
    ...env,
  });
  const services = await createServices(config, { ...(db.schema ? { schema: db.schema } : {}), log: options.log ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent') });
  if (options.workers) startWorkers(services);
  await bootstrapAdmin(config, services.store, services.users);
  const app = await buildApp(services, options.tls ? { tls: options.tls } : {});
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;

  const request = <T>(method: string, path: string, options: RequestOptions = {}) => httpRequest<T>(url, method, path, options);

  return {
    url,
    app,
    services,
    db,
    request,
    async login(email = ADMIN_EMAIL, password = ADMIN_PASSWORD) {
      const response = await request<{ accessToken: string }>('POST', '/api/v1/auth/login', { body: { email, password } });
      if (response.status !== 200) throw new Error(`login of ${email} failed: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body.accessToken;
    },
    async close({ keepDatabase = false } = {}) {
      // A response that ends just as the server closes leaves its kept-alive socket open, which
      // would hold the close for the keep-alive timeout: such sockets are closed after a moment.
      const closed = app.close();
      // (An HTTP/2 server has no closeAllConnections: Node closes its sessions itself.)
      const stragglers = setTimeout(() => app.server.closeAllConnections?.(), 500);
      await closed;
      clearTimeout(stragglers);
      await closeServices(services);
      if (!keepDatabase) await db.drop();
    },
  };
}

/** A test file's app, signed in as the admin: usable inside its tests and hooks, not at collection. */
export interface SharedTestApp extends TestApp {
  /** The admin's access token. */
  readonly admin: string;
}

/**
 * Starts the app before a file's (or a describe block's) tests, signs the admin in, and closes it
 * after them; the hooks belong to the block it is called in. Arguments as for `startTestApp`.
 */
export function useTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): SharedTestApp {
  let started: { app: TestApp; admin: string } | undefined;
  const current = () => {
    if (!started) throw new Error('useTestApp: the app is started in beforeAll; use it inside tests and hooks');
    return started;
  };
  beforeAll(async () => {
    const app = await startTestApp(env, options);
    started = { app, admin: await app.login() };
  });
  afterAll(async () => {
    await started?.app.close();
    started = undefined;
  });
  return {
    get url() { return current().app.url; },
    get app() { return current().app.app; },
    get services() { return current().app.services; },
    get db() { return current().app.db; },
    get admin() { return current().admin; },
    request: <T>(method: string, path: string, requestOptions?: RequestOptions) => current().app.request<T>(method, path, requestOptions),
    login: (email, password) => current().app.login(email, password),
    close: (closeOptions) => current().app.close(closeOptions),
  };
}

/** A request to a server under test: JSON in and out, an optional bearer token, or a raw body. */
export async function httpRequest<T>(baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json') && text.length > 0) parsed = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed as T };
}

/** Asserts the standard error body and returns it, for tests that check status and message. */
export function expectErrorBody(response: ApiResponse, status: number): { statusCode: number; error: string; message: string } {
  const body = response.body as { statusCode: number; error: string; message: string };
  if (response.status !== status || body.statusCode !== status || typeof body.error !== 'string' || typeof body.message !== 'string') {
    throw new Error(`expected a ${status} error body, got ${response.status} ${JSON.stringify(response.body)}`);
  }
  return body;
}

