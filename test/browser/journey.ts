import type { Page } from 'puppeteer-core';
import type { BrowserSession } from './browser-session.ts';

/**
 * The editors' journey as named steps. A step runs only when the steps it needs passed (so one
 * failure is reported once, not again by everything after it); each passing step leaves a
 * screenshot of every editor's page, a failing one also their console and network logs.
 */
export class Journey {
  private readonly sessions: readonly BrowserSession[];
  private readonly dir: string;
  private readonly passed = new Set<string>();
  private count = 0;

  /** `dir`: where the screenshots and logs go; `sessions`: the editors' browser contexts. */
  constructor(dir: string, sessions: readonly BrowserSession[]) {
    this.dir = dir;
    this.sessions = sessions;
  }

  async step(name: string, needs: readonly string[], run: () => Promise<void>): Promise<void> {
    this.count += 1;
    const file = `${String(this.count).padStart(2, '0')}-${name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/-$/, '')}`;
    const missing = needs.filter((need) => !this.passed.has(need));
    if (missing.length > 0) throw new Error(`not run: it needs ${missing.map((need) => `"${need}"`).join(', ')}, which did not pass`);
    const toastsBefore = await Promise.all(this.sessions.map(async (session) => (await session.toasts()).length));
    try {
      await run();
      // A warning or error toast fails the step even when its action went through.
      const bad = (await Promise.all(this.sessions.map(async (session, i) => (await session.toasts()).slice(toastsBefore[i]).map((toast) => ({ ...toast, who: session.label })))))
        .flat()
        .filter((toast) => toast.tone === 'critical' || toast.tone === 'caution');
      if (bad.length > 0) throw new Error(`Studio showed ${bad.map((toast) => `${toast.who} a ${toast.tone} toast: "${toast.text}"`).join('; ')}`);
      await Promise.all(this.sessions.map((session) => session.save(this.dir, file)));
      this.passed.add(name);
    } catch (error) {
      await Promise.all(this.sessions.map((session) => session.save(this.dir, `${file}.failed`, { logs: true })));
      throw error;
    }
  }
}

/** Waits until `check` returns a value (not undefined), asking again every 200 ms. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The footer's status once nothing is being saved ("Saved", "Edited just now", "Published", ...). */
export async function settledStatus(page: Page, timeoutMs = 30_000): Promise<string> {
  await page.waitForFunction(
    () => {
      const footer = document.querySelector('[data-testid="pane-footer"]')?.textContent ?? '';
      const status = document.querySelector('[data-testid="pane-footer-document-status"]')?.textContent ?? '';
      return status !== '' && !/Saving/i.test(footer);
    },
    { timeout: timeoutMs },
  );
  return page.$eval('[data-testid="pane-footer-document-status"]', (element) => element.textContent ?? '');
}

/** The id of the document open in the structure tool (`/structure/post;<id>,template=post?...`). */
export function openDocumentId(url: string): string {
  const match = /;([^,?/;]+)/.exec(decodeURIComponent(new URL(url).pathname));
  if (!match?.[1]) throw new Error(`no document is open at ${url}`);
  return match[1];
}

/** Clicks what `selector` finds once it is there, looked up again for the click: Studio renders panes again while they load. */
export async function clickWhenReady(page: Page, selector: string, timeoutMs = 30_000): Promise<void> {
  await page.waitForSelector(selector, { timeout: timeoutMs });
  await page.click(selector);
}

/**
 * Clicks `selector` until `appears` is there: a click that lands while Studio renders the document
 * pane again (its actions load after the form) is lost, and nothing opens.
 */
export async function clickUntil(page: Page, selector: string, appears: string, timeoutMs = 30_000): Promise<void> {
  await until(`${appears} after clicking ${selector}`, async () => {
    if (await page.$(appears)) return true;
    await page.click(selector).catch(() => undefined);
    await page.waitForSelector(appears, { timeout: 3_000 }).catch(() => undefined);
    return (await page.$(appears)) ? true : undefined;
  }, timeoutMs);
}
