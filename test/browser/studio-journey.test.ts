import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ElementHandle } from 'puppeteer-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureLocalCertificate } from '../../src/http/local-certificate.ts';
import { connectHttp2, type Http2Client } from '../helpers/http2-client.ts';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.ts';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../helpers/test-app.ts';
import { launchBrowser, type BrowserSession } from './browser-session.ts';
import { clickWhenReady, Journey, openDocumentId, settledStatus, until } from './journey.ts';
import { ensureJourneyStudio, JOURNEY_DATASET, JOURNEY_PROJECT } from './studio-build.ts';

const EDITOR = { email: 'edna@example.com', name: 'Edna Editor', password: 'edna-password-1' };
const AUTHOR = { _id: 'ada-lovelace', _type: 'author', name: 'Ada Lovelace' };
const WELCOME = { _id: 'welcome', _type: 'post', title: 'Welcome to the blog' };
const TITLE = 'Notes from the Analytical Engine';

const STEP = {
  signIn: 'signs in through the service login page',
  list: 'lists posts',
  create: 'creates a post and types its title',
  draft: 'the draft is in the service',
  publish: 'publishes',
  image: 'uploads an image and shows its preview',
  reference: 'picks an author by search',
  unpublish: 'unpublishes in the Published perspective',
  remove: 'deletes the post',
} as const;

type Doc = Record<string, unknown> & { _id: string };

// Sanity Studio 4.22.1, built from studio/, unchanged, in Debian's Chromium against `cms serve`
// over HTTPS and HTTP/2: an editor signs in and writes, publishes, illustrates, unpublishes and
// deletes a post, and the service holds what Studio shows at every step.
describe('Sanity Studio: an editor’s journey', () => {
  let dataDir: string;
  let server: ServerProcess;
  let api: Http2Client;
  let admin: string;
  let browser: BrowserSession;
  let journey: Journey;
  let postId = '';

  const headers = { 'x-project': JOURNEY_PROJECT };
  async function stored(id: string): Promise<Doc | undefined> {
    const response = await api.request<Doc>('GET', `/api/v1/data/doc/${JOURNEY_DATASET}/${id}`, { token: admin, headers });
    if (response.status === 404) return undefined;
    if (response.status !== 200) throw new Error(`GET ${id}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  }
  async function write(mutations: unknown[]): Promise<void> {
    const response = await api.request('POST', `/api/v1/data/mutate/${JOURNEY_DATASET}`, { token: admin, headers, body: { mutations } });
    if (response.status !== 200) throw new Error(`mutate: ${response.status} ${JSON.stringify(response.body)}`);
  }
  const page = () => browser.page;

  beforeAll(async () => {
    const studioDir = await ensureJourneyStudio();
    dataDir = mkdtempSync(join(tmpdir(), 'cms-studio-journey-'));
    const certificate = await ensureLocalCertificate(join(dataDir, 'tls'));
    server = await startServerProcess({
      DATA_DIR: dataDir,
      STUDIO_DIR: studioDir,
      TLS_CERT_FILE: certificate.certFile,
      TLS_KEY_FILE: certificate.keyFile,
      // The defaults a user gets (the test helper raises them for API tests): Studio's sign-in
      // session has its own, higher limit (RATE_LIMIT_SESSION_PER_MINUTE).
      RATE_LIMIT_PER_MINUTE: '',
      RATE_LIMIT_AUTH_PER_MINUTE: '',
    });
    const origin = server.url.replace('127.0.0.1', 'localhost');
    api = await connectHttp2(server.url, readFileSync(certificate.certFile));
    const login = await api.request<{ accessToken: string }>('POST', '/api/v1/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    admin = login.body.accessToken;
    const project = await api.request('POST', '/api/v1/projects', { token: admin, body: { name: 'Blog', slug: JOURNEY_PROJECT, datasets: [JOURNEY_DATASET] } });
    expect(project.status, JSON.stringify(project.body)).toBe(201);
    // Another project with a dataset of the same name: Studio's requests must name theirs.
    const other = await api.request('POST', '/api/v1/projects', { token: admin, body: { name: 'Shop', slug: 'shop', datasets: [JOURNEY_DATASET] } });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    const editor = await api.request('POST', '/api/v1/users', { token: admin, body: { ...EDITOR, role: 'editor' } });
    expect(editor.status, JSON.stringify(editor.body)).toBe(201);
    await write([{ createOrReplace: AUTHOR }, { createOrReplace: WELCOME }]);
    browser = await launchBrowser(origin);
    journey = new Journey(browser);
    await page().goto(`${origin}/`, { waitUntil: 'domcontentloaded' });
  });

  afterAll(async () => {
    await browser?.save('99-last', { logs: true });
    await browser?.close();
    await api?.close();
    if (server) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it(STEP.signIn, () =>
    journey.step(STEP.signIn, [], async () => {
      // Studio's "Choose login provider" screen links to the service's /login page.
      await clickWhenReady(page(), 'a[href*="/login?"]', 60_000);
      await page().waitForSelector('input[name=email]');
      await page().type('input[name=email]', EDITOR.email);
      await page().type('input[name=password]', EDITOR.password);
      await Promise.all([page().waitForNavigation(), page().click('button[type=submit]')]);
      await page().waitForSelector('[data-testid="structure-tool-list-pane"]', { timeout: 60_000 });
      // The navbar's avatar shows the signed-in user.
      await page().waitForSelector('[data-testid="studio-navbar"]');
      expect(page().url()).not.toContain('token=');
    }));

  it(STEP.list, () =>
    journey.step(STEP.list, [STEP.signIn], async () => {
      await clickWhenReady(page(), '[data-testid="pane-item-Post"]');
      await page().waitForSelector('[data-testid="document-list-pane"]');
      await page().waitForFunction(
        (title) => document.querySelector('[data-testid="document-list-pane"]')?.textContent?.includes(title),
        { timeout: 30_000 },
        WELCOME.title,
      );
    }));

  it(STEP.create, () =>
    journey.step(STEP.create, [STEP.list], async () => {
      await clickWhenReady(page(), '[data-testid="action-intent-button"]');
      // The form is read-only, and its inputs are rendered again, until the new document's
      // permissions and state have loaded; the footer's actions come with them.
      const input = '[data-testid="field-title"] input:not([readonly]):not([disabled])';
      await page().waitForSelector(`[data-testid="pane-footer"] [data-testid="action-publish"]`, { timeout: 30_000 });
      await page().waitForSelector(input, { timeout: 30_000 });
      await page().click(input);
      await page().type(input, TITLE, { delay: 40 });
      postId = openDocumentId(page().url());
      await until('the typed title to reach the service', async () => ((await stored(`drafts.${postId}`))?.title === TITLE ? true : undefined));
      const status = await settledStatus(page());
      expect(status).toMatch(/Saved|Edited/);
    }));

  it(STEP.draft, () =>
    journey.step(STEP.draft, [STEP.create], async () => {
      const draft = await stored(`drafts.${postId}`);
      expect(draft).toMatchObject({ _id: `drafts.${postId}`, _type: 'post', title: TITLE });
      expect(await stored(postId)).toBeUndefined();
    }));

  it(STEP.publish, () =>
    journey.step(STEP.publish, [STEP.create], async () => {
      await page().click('[data-testid="action-publish"]');
      await until('the post to be published', async () => ((await stored(postId))?.title === TITLE ? true : undefined));
      await until('the draft to be gone', async () => ((await stored(`drafts.${postId}`)) === undefined ? true : undefined));
      // Nothing left to publish: the button is disabled.
      await page().waitForSelector('[data-testid="action-publish"]:disabled', { timeout: 30_000 });
    }));

  it(STEP.image, () =>
    journey.step(STEP.image, [STEP.create], async () => {
      const file = join(dataDir, 'sunrise.png');
      await sharp({ create: { width: 320, height: 200, channels: 3, background: { r: 230, g: 120, b: 40 } } }).png().toFile(file);
      const input = await page().waitForSelector('[data-testid="image-input"] input[type=file]');
      await input!.uploadFile(file);
      // The preview is an <img> on the service's /api/p/<project>/images/... URL, loaded without a
      // bearer token (the sign-in's cookie lets it through).
      await page().waitForFunction(
        () => {
          const img = document.querySelector<HTMLImageElement>('[data-testid="image-input"] img');
          return img !== null && img.complete && img.naturalWidth > 0 && /\/api\/p\/[^/]+\/images\//.test(img.src);
        },
        { timeout: 60_000 },
      );
      const draft = await until('the image to be set on the draft', async () => {
        const doc = await stored(`drafts.${postId}`);
        const ref = (doc?.mainImage as { asset?: { _ref?: string } } | undefined)?.asset?._ref;
        return ref ? doc : undefined;
      });
      expect((draft.mainImage as { asset: { _ref: string } }).asset._ref).toMatch(/^image-[0-9a-f]+-320x200-png$/);
      await settledStatus(page());
    }));

  it(STEP.reference, () =>
    journey.step(STEP.reference, [STEP.create], async () => {
      await clickWhenReady(page(), '[data-testid="reference-input"] input');
      await page().type('[data-testid="reference-input"] input', 'Ada', { delay: 60 });
      // The options' previews load after the search answers.
      const option = await page().waitForFunction(
        (name) => [...document.querySelectorAll<HTMLElement>('[data-testid="autocomplete-popover"] [role=option] button')].find((button) => button.textContent?.includes(name)),
        { timeout: 30_000 },
        AUTHOR.name,
      );
      const button = option.asElement() as ElementHandle<Element> | null;
      if (!button) throw new Error(`no option for ${AUTHOR.name}`);
      await button.click();
      await until('the author reference on the draft', async () => {
        const doc = await stored(`drafts.${postId}`);
        return (doc?.author as { _ref?: string } | undefined)?._ref === AUTHOR._id ? true : undefined;
      });
      await settledStatus(page());
    }));

  it(STEP.unpublish, () =>
    journey.step(STEP.unpublish, [STEP.publish], async () => {
      // Studio 4.22.1 offers Unpublish only in the Published perspective.
      await clickWhenReady(page(), '[data-testid="global-perspective-menu-button"]');
      await clickWhenReady(page(), '[data-testid="release-published"]');
      await clickWhenReady(page(), '[data-testid="action-unpublish"]', 30_000);
      // The post has a draft (the image and the author), so Studio asks first; the dialog looks
      // for documents that refer to this one before it enables its button.
      await clickWhenReady(page(), '[data-testid="confirm-button"]:not([disabled])', 30_000);
      await until('the published post to be gone', async () => ((await stored(postId)) === undefined ? true : undefined));
      expect(await stored(`drafts.${postId}`)).toMatchObject({ title: TITLE });
      await clickWhenReady(page(), '[data-testid="global-perspective-menu-button"]');
      await clickWhenReady(page(), '[data-testid="release-drafts"]');
      await page().waitForFunction(() => !location.search.includes('perspective=published'), { timeout: 30_000 });
    }));

  it(STEP.remove, () =>
    journey.step(STEP.remove, [STEP.create], async () => {
      await clickWhenReady(page(), '[data-testid="pane-footer"] [data-testid="action-menu-button"]');
      await clickWhenReady(page(), '[data-testid="action-Delete"]');
      // The dialog first looks for documents that refer to this one, then offers to delete.
      await clickWhenReady(page(), '[data-testid="confirm-button"]:not([disabled])', 30_000);
      await until('the post and its draft to be gone', async () =>
        (await stored(postId)) === undefined && (await stored(`drafts.${postId}`)) === undefined ? true : undefined,
      );
      await page().waitForFunction((id) => !document.querySelector('[data-testid="document-list-pane"]')?.innerHTML.includes(id), { timeout: 30_000 }, postId);
    }));

  it('loaded nothing from another origin', () => {
    expect(browser.foreign).toEqual([]);
  });
});
