import { join } from 'node:path';
import type { ElementHandle } from 'puppeteer-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserSession } from './browser-session.ts';
import { clickUntil, clickWhenReady, Journey, openDocumentId, settledStatus, until } from './journey.ts';
import { EDNA, expectedWritePath, signIn, startStudioWorld, writePath, type StudioWorld } from './studio-setup.ts';

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

// Sanity Studio, built from studio/ (or STUDIO_VERSION's folder of studio/versions/), unchanged,
// in Debian's Chromium against `cms serve` over HTTPS and HTTP/2: an editor signs in and writes,
// publishes, illustrates, unpublishes and deletes a post, and the service holds what Studio shows
// at every step.
describe('Sanity Studio: an editor’s journey', () => {
  let world: StudioWorld;
  let browser: BrowserSession;
  let journey: Journey;
  let postId = '';
  const stored = (id: string) => world.stored(id);
  const page = () => browser.page;

  beforeAll(async () => {
    world = await startStudioWorld('editor', [AUTHOR, WELCOME]);
    journey = new Journey(world.artifacts, world.sessions);
  });

  afterAll(async () => {
    if (browser) await browser.save(world.artifacts, '99-last', { logs: true });
    await world?.close();
  });

  it(STEP.signIn, () =>
    journey.step(STEP.signIn, [], async () => {
      browser = await world.open(EDNA);
      await signIn(page(), EDNA);
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
      const file = join(world.dataDir, 'sunrise.png');
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
      await page().waitForSelector('[data-testid="action-unpublish"]:not([disabled])', { timeout: 30_000 });
      await clickUntil(page(), '[data-testid="action-unpublish"]', '[data-testid="confirm-button"]');
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

  it('wrote through the API its Studio version uses', () => {
    const expected = expectedWritePath(world.studioVersion);
    const seen = writePath(browser);
    expect(seen[expected], `Studio ${world.studioVersion} wrote through ${JSON.stringify(seen)}`).toBeGreaterThan(0);
    expect(seen[expected === 'actions' ? 'mutate' : 'actions']).toBe(0);
  });
});
