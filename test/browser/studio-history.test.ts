import type { ElementHandle, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserSession } from './browser-session.ts';
import { clickWhenReady, Journey, settledStatus, until } from './journey.ts';
import { EDNA, expectedWritePath, SAM, signIn, startStudioWorld, writePath, type StudioWorld } from './studio-setup.ts';

const POST = { _id: 'field-notes', _type: 'post', title: 'Field notes', slug: { _type: 'slug', current: 'field-notes' } };
const FIRST = 'Field notes, revised';
const SECOND = 'Field notes, revised twice';

const STEP = {
  signIn: 'two editors sign in, each in a browser context of their own',
  open: 'both open the same published post',
  live: 'the second editor sees the first one’s typing as it happens',
  first: 'publishes the first change',
  second: 'changes the title again and publishes',
  history: 'History lists both revisions',
  reviewSecond: 'Review changes shows the second change on the title alone',
  reviewFirst: 'the first revision shows the first change on the title alone',
  restore: 'restores the first revision',
} as const;

const TITLE_INPUT = '[data-testid="field-title"] input';
const titleValue = (page: Page) => page.$eval(TITLE_INPUT, (input) => (input as HTMLInputElement).value);

/** Appends `text` to the title, as an editor types it (the form is editable once the footer's actions are there). */
async function typeIntoTitle(page: Page, text: string): Promise<void> {
  const input = `${TITLE_INPUT}:not([readonly]):not([disabled])`;
  await page.waitForSelector('[data-testid="pane-footer"] [data-testid="action-publish"]', { timeout: 30_000 });
  await clickWhenReady(page, input);
  await page.keyboard.press('End');
  await page.type(input, text, { delay: 60 });
}

/** The buttons of History's list, with their text ("Published", "Edited", ...), newest first. */
function timeline(page: Page): Promise<string[]> {
  return page.$$eval('[data-testid="timeline-item-button"]', (items) => items.map((item) => (item as HTMLElement).innerText.replace(/\s+/g, ' ').trim()));
}

/** Review changes from the revision `pick` chooses in the panel's "From" menu (its items newest first). */
async function reviewSince(page: Page, pick: (items: string[]) => number): Promise<void> {
  await clickWhenReady(page, '#changes-tab');
  // The first menu button is "From", the second "To".
  await clickWhenReady(page, '[data-testid="timeline-menu-open-button"]');
  const item = '[data-testid="timeline-menu"] [data-testid="timeline-item-button"]';
  await page.waitForSelector(item, { timeout: 30_000 });
  const items = await page.$$eval(item, (buttons) => buttons.map((button) => (button as HTMLElement).innerText.replace(/\s+/g, ' ').trim()));
  const index = pick(items);
  if (index < 0) throw new Error(`no revision to review from in ${JSON.stringify(items)}`);
  await page.evaluate((selector, i) => (document.querySelectorAll(selector)[i] as HTMLElement).click(), item, index);
  await page.keyboard.press('Escape');
}

/** The title, and nothing else, has a change bar in the form and a diff showing `title` in the panel. */
async function expectTitleChange(page: Page, title: string): Promise<void> {
  await page.waitForFunction(
    (text) => {
      // The History tab's list has that test id too.
      const pane = (document.querySelector('#review-panel [data-testid="review-changes-pane"]') as HTMLElement | null)?.innerText ?? '';
      return /Title/.test(pane) && pane.includes(text);
    },
    { timeout: 30_000 },
    title,
  );
  await page.waitForSelector('[data-testid="field-title"] [data-testid="change-bar"]', { timeout: 30_000 });
  expect(await page.$('[data-testid="field-slug"] [data-testid="change-bar"]')).toBeNull();
}

// Two editors in Sanity Studio on one published post: live edits from one appear in the other's
// form, two published changes show in History and Review changes, and the first is restored.
describe('Sanity Studio: history, review changes and live edits', () => {
  let world: StudioWorld;
  let edna: BrowserSession;
  let sam: BrowserSession;
  let journey: Journey;
  const stored = (id: string) => world.stored(id);

  beforeAll(async () => {
    world = await startStudioWorld('history', [POST]);
    journey = new Journey(world.artifacts, world.sessions);
  });

  afterAll(async () => {
    for (const session of world?.sessions ?? []) await session.save(world.artifacts, '99-last', { logs: true });
    await world?.close();
  });

  it(STEP.signIn, () =>
    journey.step(STEP.signIn, [], async () => {
      edna = await world.open(EDNA);
      sam = await world.open(SAM);
      await Promise.all([signIn(edna.page, EDNA), signIn(sam.page, SAM)]);
    }));

  it(STEP.open, () =>
    journey.step(STEP.open, [STEP.signIn], async () => {
      for (const { page } of [edna, sam]) {
        await page.goto(`${world.origin}/structure/post;${POST._id}`, { waitUntil: 'domcontentloaded' });
        await page.waitForFunction((selector, title) => (document.querySelector(selector) as HTMLInputElement | null)?.value === title, { timeout: 60_000 }, TITLE_INPUT, POST.title);
      }
    }));

  it(STEP.live, () =>
    journey.step(STEP.live, [STEP.open], async () => {
      await typeIntoTitle(edna.page, FIRST.slice(POST.title.length));
      // Sam's form follows through the service's listener, without a reload.
      await sam.page.waitForFunction((selector, title) => (document.querySelector(selector) as HTMLInputElement | null)?.value === title, { timeout: 30_000 }, TITLE_INPUT, FIRST);
      await until('the draft in the service', async () => ((await stored(`drafts.${POST._id}`))?.title === FIRST ? true : undefined));
      expect((await stored(POST._id))?.title).toBe(POST.title);
    }));

  it(STEP.first, () =>
    journey.step(STEP.first, [STEP.live], async () => {
      await settledStatus(edna.page);
      await clickWhenReady(edna.page, '[data-testid="action-publish"]:not([disabled])');
      await until('the first change to be published', async () => ((await stored(POST._id))?.title === FIRST ? true : undefined));
      await edna.page.waitForSelector('[data-testid="action-publish"]:disabled', { timeout: 30_000 });
    }));

  it(STEP.second, () =>
    journey.step(STEP.second, [STEP.first], async () => {
      await typeIntoTitle(edna.page, SECOND.slice(FIRST.length));
      await until('the second change in the draft', async () => ((await stored(`drafts.${POST._id}`))?.title === SECOND ? true : undefined));
      await settledStatus(edna.page);
      await clickWhenReady(edna.page, '[data-testid="action-publish"]:not([disabled])');
      await until('the second change to be published', async () => ((await stored(POST._id))?.title === SECOND ? true : undefined));
      await edna.page.waitForSelector('[data-testid="action-publish"]:disabled', { timeout: 30_000 });
      expect(await titleValue(sam.page)).toBe(SECOND);
    }));

  it(STEP.history, () =>
    journey.step(STEP.history, [STEP.second], async () => {
      // The footer's status ("Last published just now") opens the panel, on its History tab.
      await clickWhenReady(edna.page, '[data-testid="pane-footer-document-status"]');
      await clickWhenReady(edna.page, '#history-tab');
      const items = await until('History to list the two publishes after the creation', async () => {
        const list = await timeline(edna.page);
        return list.filter((item) => /Published/i.test(item)).length >= 2 ? list : undefined;
      });
      expect(items.length).toBeGreaterThanOrEqual(3);
    }));

  it(STEP.reviewSecond, () =>
    journey.step(STEP.reviewSecond, [STEP.history], async () => {
      // From the first publish to the latest revision.
      await reviewSince(edna.page, (items) => items.findIndex((item) => /Published/i.test(item)));
      await expectTitleChange(edna.page, SECOND);
    }));

  it(STEP.reviewFirst, () =>
    journey.step(STEP.reviewFirst, [STEP.reviewSecond], async () => {
      // History's older publish: the form shows the post as it was then, read-only.
      await clickWhenReady(edna.page, '#history-tab');
      // The tab renders its list again when it opens: wait for both publishes to be back in it.
      const publishes = await until('History to list the two publishes again', async () => {
        const found = (await timeline(edna.page)).map((text, i) => ({ text, i })).filter(({ text }) => /Published/i.test(text));
        return found.length >= 2 ? found : undefined;
      });
      const first = publishes[1]!.i;
      await edna.page.evaluate((i) => (document.querySelectorAll('[data-testid="timeline-item-button"]')[i] as HTMLElement).click(), first);
      await edna.page.waitForFunction((selector, title) => (document.querySelector(selector) as HTMLInputElement | null)?.value === title, { timeout: 30_000 }, TITLE_INPUT, FIRST);
      // From the post as it was created, before the first change (the draft's edits, "Edited",
      // already had the new title).
      await reviewSince(edna.page, (items) => items.findIndex((item) => /Created|Live edited/i.test(item)));
      await expectTitleChange(edna.page, FIRST);
    }));

  it(STEP.restore, () =>
    journey.step(STEP.restore, [STEP.reviewFirst], async () => {
      // "Revert to revision" in the footer, then the popover's confirmation.
      const revert = await edna.page.waitForFunction(
        () => [...document.querySelectorAll<HTMLButtonElement>('[data-testid="pane-footer"] button')].find((button) => /Revert to revision|Restore/i.test(button.innerText) && !button.disabled),
        { timeout: 30_000 },
      );
      const button = revert.asElement() as ElementHandle<Element> | null;
      if (!button) throw new Error('no "Revert to revision" button');
      await button.click();
      await clickWhenReady(edna.page, '[data-testid="confirm-popover-confirm-button"]');
      await until('the first revision restored as the draft', async () => ((await stored(`drafts.${POST._id}`))?.title === FIRST ? true : undefined));
      await edna.page.waitForFunction((selector, title) => (document.querySelector(selector) as HTMLInputElement | null)?.value === title, { timeout: 30_000 }, TITLE_INPUT, FIRST);
      expect((await stored(POST._id))?.title).toBe(SECOND);
    }));

  it('loaded nothing from another origin', () => {
    expect(world.sessions.flatMap((session) => session.foreign)).toEqual([]);
  });

  it('wrote through the API its Studio version uses', () => {
    const expected = expectedWritePath(world.studioVersion);
    const seen = writePath(edna);
    expect(seen[expected], `Studio ${world.studioVersion} wrote through ${JSON.stringify(seen)}`).toBeGreaterThan(0);
    expect(seen[expected === 'actions' ? 'mutate' : 'actions']).toBe(0);
  });
});
