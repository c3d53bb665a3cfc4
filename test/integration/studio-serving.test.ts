import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';
import { ensureLocalCertificate } from '../../src/http/local-certificate.ts';
import { expectErrorBody, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testEngine } from '../helpers/engine.ts';

const INLINE_SCRIPT = 'window.__studioErrors = [];';
const INDEX = `<!doctype html><html><head><script>${INLINE_SCRIPT}</script><script type="module" src="/static/sanity-AbC123xy.js"></script></head><body id="sanity"></body></html>`;

/** A stand-in for `sanity build` output: index.html, hashed chunks under static/, a favicon. */
function fakeStudioBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cms-studio-'));
  mkdirSync(join(dir, 'static'));
  writeFileSync(join(dir, 'index.html'), INDEX);
  writeFileSync(join(dir, 'static', 'sanity-AbC123xy.js'), 'console.log("studio")');
  writeFileSync(join(dir, 'static', 'manifest.webmanifest'), '{}');
  writeFileSync(join(dir, 'favicon.ico'), 'icon');
  return dir;
}

describe(`a built Sanity Studio served on the service's origin (${testEngine})`, () => {
  let studioDir: string;
  let app: TestApp;

  beforeAll(async () => {
    studioDir = fakeStudioBuild();
    app = await startTestApp({ STUDIO_DIR: studioDir });
  });
  afterAll(async () => {
    await app.close();
    rmSync(studioDir, { recursive: true, force: true });
  });

  it('serves its files without credentials; hashed chunks are cached for good, the rest revalidated', async () => {
    const chunk = await app.request('GET', '/static/sanity-AbC123xy.js');
    expect(chunk.status).toBe(200);
    expect(chunk.headers.get('content-type')).toMatch(/javascript/);
    expect(chunk.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const manifest = await app.request('GET', '/static/manifest.webmanifest');
    expect(manifest.status).toBe(200);
    expect(manifest.headers.get('cache-control')).toBe('no-cache');
    expect((await app.request('GET', '/favicon.ico')).status).toBe(200);
  });

  it('counts its files against a larger per-address limit than the API, on a counter of their own', async () => {
    const limited = await startTestApp({ STUDIO_DIR: studioDir, RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const statuses = [];
      for (let i = 0; i < 10; i++) statuses.push((await limited.request('GET', '/static/sanity-AbC123xy.js')).status);
      expect(statuses.every((status) => status === 200)).toBe(true);
      const file = await limited.request('GET', '/');
      expect(file.headers.get('x-ratelimit-limit')).toBe('60');
      // The API's own counter is untouched by them.
      expect((await limited.request('GET', '/api/v1/health')).headers.get('x-ratelimit-remaining')).toBe('2');
    } finally {
      await limited.close();
    }
  });

  it('answers its own routes with index.html, which the studio routes in the browser', async () => {
    for (const path of ['/', '/index.html', '/structure', '/structure/post;abc123', '/intent/edit/id=x;type=post/?a=1']) {
      const page = await app.request('GET', path);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.get('cache-control')).toBe('no-cache');
      expect(page.body).toBe(INDEX);
    }
  });

  it("limits the page to its own origin and its own inline scripts (Studio's update check on Sanity's CDN is refused)", async () => {
    const policy = (await app.request('GET', '/structure')).headers.get('content-security-policy') ?? '';
    const directives = new Map(policy.split(/;\s*/).map((directive) => [directive.split(' ')[0], directive]));
    const hash = createHash('sha256').update(INLINE_SCRIPT).digest('base64');
    expect(directives.get('script-src')).toBe(`script-src 'self' 'sha256-${hash}'`);
    expect(directives.get('connect-src')).toBe("connect-src 'self'");
    expect(directives.get('default-src')).toBe("default-src 'self'");
    expect(directives.get('frame-ancestors')).toBe("frame-ancestors 'self'");
  });

  it('never answers API paths or other methods: those keep their own 404', async () => {
    for (const path of ['/api', '/api/', '/api/v1/no-such-route', '/api/v2025-02-19/nothing']) {
      expectErrorBody(await app.request('GET', path), 404);
    }
    expectErrorBody(await app.request('POST', '/structure'), 404);
    expect((await app.request('GET', '/api/v1/health')).status).toBe(200);
  });

  it('leaves /login to the sign-in page', async () => {
    const login = await app.request<string>('GET', '/login');
    expect(login.body).not.toBe(INDEX);
  });

  it('cms serve with TLS_* and STUDIO_DIR prints its https URLs', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cms-studio-serve-'));
    const lines: string[] = [];
    try {
      const certificate = await ensureLocalCertificate(join(dataDir, 'tls'));
      const env = { DATA_DIR: dataDir, PORT: '0', STUDIO_DIR: studioDir, TLS_CERT_FILE: certificate.certFile, TLS_KEY_FILE: certificate.keyFile, LOG_LEVEL: 'silent', BCRYPT_ROUNDS: '4' };
      const server = await startServer(loadConfig(env), (line) => lines.push(line));
      await server.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    expect(lines[0]).toMatch(/^Content service listening on https:\/\/127\.0\.0\.1:\d+\/api\/v1 /);
    expect(lines).toContainEqual(expect.stringMatching(/^Sanity Studio: https:\/\/127\.0\.0\.1:\d+\/ \(from /));
  });

  it('is not served without STUDIO_DIR, and a folder without a build stops the start', async () => {
    const plain = await startTestApp();
    try {
      expectErrorBody(await plain.request('GET', '/structure'), 404);
    } finally {
      await plain.close();
    }
    const empty = mkdtempSync(join(tmpdir(), 'cms-studio-empty-'));
    try {
      const config = loadConfig({ STUDIO_DIR: empty, DATA_DIR: empty, PORT: '0' });
      await expect(startServer(config, () => undefined)).rejects.toThrow(/STUDIO_DIR .* has no index.html: build the studio first/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
