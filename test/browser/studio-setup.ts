import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { expect } from 'vitest';
import { ensureLocalCertificate } from '../../src/http/local-certificate.ts';
import { connectHttp2, type Http2Client } from '../helpers/http2-client.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/test-app.ts';
import { ARTIFACTS, launchChromium, type BrowserSession, type Chromium } from './browser-session.ts';
import { clickWhenReady } from './journey.ts';
import { ensureJourneyStudio, JOURNEY_DATASET, JOURNEY_PROJECT } from './studio-build.ts';

export interface Editor {
  email: string;
  name: string;
  password: string;
}
export const EDNA: Editor = { email: 'edna@example.com', name: 'Edna Editor', password: 'edna-password-1' };
export const SAM: Editor = { email: 'sam@example.com', name: 'Sam Second', password: 'sam-password-1' };

export type Doc = Record<string, unknown> & { _id: string };

/** A built studio served by a real `cms serve` over HTTPS and HTTP/2, two editors, and Chromium. */
export interface StudioWorld {
  origin: string;
  dataDir: string;
  /** The `sanity` version the studio was built with (`5.31.2`). */
  studioVersion: string;
  /** This version's screenshots and logs. */
  artifacts: string;
  chromium: Chromium;
  /** Every editor's browser context so far. */
  sessions: BrowserSession[];
  /** An editor's own browser context, on the studio's first page (not signed in yet). */
  open(editor: Editor): Promise<BrowserSession>;
  stored(id: string): Promise<Doc | undefined>;
  write(mutations: unknown[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the service with the journey's studio (beside a second project with the same dataset
 * name: Studio's requests must name theirs), creates both editors and `seed`, and Chromium.
 */
export async function startStudioWorld(suite: string, seed: Doc[]): Promise<StudioWorld> {
  const studio = await ensureJourneyStudio();
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-studio-journey-'));
  const certificate = await ensureLocalCertificate(join(dataDir, 'tls'));
  let server: ServerProcess | undefined;
  let api: Http2Client | undefined;
  let chromium: Chromium | undefined;
  const sessions: BrowserSession[] = [];
  const close = async () => {
    await Promise.all(sessions.map((session) => session.close().catch(() => undefined)));
    await chromium?.close();
    await api?.close();
    if (server) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    server = await startServerProcess({
      DATA_DIR: dataDir,
      STUDIO_DIR: studio.dir,
      TLS_CERT_FILE: certificate.certFile,
      TLS_KEY_FILE: certificate.keyFile,
      // The defaults a user gets (the test helper raises them for API tests): Studio's sign-in
      // session has its own, higher limit (RATE_LIMIT_SESSION_PER_MINUTE).
      RATE_LIMIT_PER_MINUTE: '',
      RATE_LIMIT_AUTH_PER_MINUTE: '',
    });
    const origin = server.url.replace('127.0.0.1', 'localhost');
    const client = (api = await connectHttp2(server.url, readFileSync(certificate.certFile)));
    const login = await client.request<{ accessToken: string }>('POST', '/api/v1/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    const admin = login.body.accessToken;
    for (const [name, slug] of [['Blog', JOURNEY_PROJECT], ['Shop', 'shop']]) {
      const project = await client.request('POST', '/api/v1/projects', { token: admin, body: { name, slug, datasets: [JOURNEY_DATASET] } });
      expect(project.status, JSON.stringify(project.body)).toBe(201);
    }
    for (const editor of [EDNA, SAM]) {
      const user = await client.request('POST', '/api/v1/users', { token: admin, body: { ...editor, role: 'editor' } });
      expect(user.status, JSON.stringify(user.body)).toBe(201);
    }
    const headers = { 'x-project': JOURNEY_PROJECT };
    const write = async (mutations: unknown[]) => {
      const response = await client.request('POST', `/api/v1/data/mutate/${JOURNEY_DATASET}`, { token: admin, headers, body: { mutations } });
      if (response.status !== 200) throw new Error(`mutate: ${response.status} ${JSON.stringify(response.body)}`);
    };
    if (seed.length > 0) await write(seed.map((doc) => ({ createOrReplace: doc })));
    const browser = (chromium = await launchChromium());
    const artifacts = join(ARTIFACTS, studio.version, suite);
    // Only this run's screenshots and logs.
    rmSync(artifacts, { recursive: true, force: true });
    return {
      origin,
      dataDir,
      studioVersion: studio.version,
      artifacts,
      chromium: browser,
      sessions,
      async open(editor) {
        const session = await browser.open(origin, editor.name.split(' ')[0]!.toLowerCase());
        sessions.push(session);
        await session.page.goto(`${origin}/`, { waitUntil: 'domcontentloaded' });
        return session;
      },
      async stored(id) {
        const response = await client.request<Doc>('GET', `/api/v1/data/doc/${JOURNEY_DATASET}/${id}`, { token: admin, headers });
        if (response.status === 404) return undefined;
        if (response.status !== 200) throw new Error(`GET ${id}: ${response.status} ${JSON.stringify(response.body)}`);
        return response.body;
      },
      write,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Studio's "Choose login provider" links to the service's /login page, which returns signed in. */
export async function signIn(page: Page, editor: Editor): Promise<void> {
  await clickWhenReady(page, 'a[href*="/login?"]', 60_000);
  await page.waitForSelector('input[name=email]');
  await page.type('input[name=email]', editor.email);
  await page.type('input[name=password]', editor.password);
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  await page.waitForSelector('[data-testid="structure-tool-list-pane"]', { timeout: 60_000 });
  // The navbar's avatar shows the signed-in user.
  await page.waitForSelector('[data-testid="studio-navbar"]');
  expect(page.url()).not.toContain('token=');
}

/**
 * Which API the studio writes through, from the service's responses it saw: Studio 4 is told to use
 * /data/mutate (sanity.config.ts); from 5.25 on Studio writes only through the Actions API.
 */
export function writePath(session: BrowserSession): { actions: number; mutate: number } {
  const count = (route: string) => session.network.filter((line) => new RegExp(`^\\d+ POST \\S+/data/${route}/`).test(line)).length;
  return { actions: count('actions'), mutate: count('mutate') };
}

export function expectedWritePath(studioVersion: string): 'actions' | 'mutate' {
  return studioVersion.startsWith('4.') ? 'mutate' : 'actions';
}
