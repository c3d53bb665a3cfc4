import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type HTTPRequest, type HTTPResponse, type Page } from 'puppeteer-core';

/** Debian's Chromium (`apt-get install chromium`); CHROMIUM_PATH names another. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Screenshots and logs of the last run, a folder per Studio version (gitignored; CI keeps them as artifacts). */
export const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));

export interface Toast {
  tone: string;
  text: string;
}

/** One editor's browser context (its own cookies and storage) and what it saw: console, network, toasts. */
export interface BrowserSession {
  /** Names its screenshots and logs (`edna`), so two editors' files stay apart. */
  label: string;
  page: Page;
  /** Console messages and page errors, in order. */
  console: string[];
  /** Every response of the service (status, method, URL), with both bodies of the failed ones. */
  network: string[];
  /** Requests the page tried to send to another origin. */
  foreign: string[];
  /** Every toast Studio showed so far (recorded in the page, as toasts disappear on their own). */
  toasts(): Promise<Toast[]>;
  /** Writes a screenshot, and with `logs` the console and network logs, under `dir`. */
  save(dir: string, name: string, options?: { logs?: boolean }): Promise<void>;
  close(): Promise<void>;
}

/** A headless Chromium with a fresh profile; each editor gets a context of their own in it. */
export interface Chromium {
  browser: Browser;
  open(origin: string, label: string): Promise<BrowserSession>;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Chromium> {
  const profile = mkdtempSync(join(tmpdir(), 'cms-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: profile,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      // The service's certificate is self-signed (DATA_DIR/tls), as `cms studio` makes it.
      '--ignore-certificate-errors',
      '--window-size=1400,900',
    ],
  });
  return {
    browser,
    open: (origin, label) => openSession(browser, origin, label),
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

async function openSession(browser: Browser, origin: string, label: string): Promise<BrowserSession> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  await page.evaluateOnNewDocument(recordToasts);
  const session: BrowserSession = {
    label,
    page,
    console: [],
    network: [],
    foreign: [],
    toasts: () => page.evaluate(() => (window as unknown as { __toasts?: Toast[] }).__toasts ?? []),
    async save(dir, name, options = {}) {
      mkdirSync(dir, { recursive: true });
      const base = join(dir, `${name}.${label}`);
      await page.screenshot({ path: `${base}.png` }).catch(() => undefined);
      if (options.logs) {
        writeFileSync(`${base}.console.log`, `${session.console.join('\n')}\n`);
        writeFileSync(`${base}.network.log`, `${session.network.join('\n')}\n`);
      }
    },
    close: () => context.close(),
  };
  page.on('console', (message) => session.console.push(`[${message.type()}] ${message.text()}`));
  page.on('pageerror', (error) => session.console.push(`[pageerror] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`));
  page.on('request', (request) => {
    const url = request.url();
    if (/^https?:/.test(url) && !url.startsWith(`${origin}/`)) session.foreign.push(`${request.method()} ${url}`);
  });
  page.on('requestfailed', (request) => session.network.push(`FAILED ${request.method()} ${request.url()}: ${request.failure()?.errorText ?? ''}`));
  page.on('response', (response) => void logResponse(session, origin, response));
  return session;
}

async function logResponse(session: BrowserSession, origin: string, response: HTTPResponse): Promise<void> {
  const request: HTTPRequest = response.request();
  if (!request.url().startsWith(`${origin}/`)) return;
  const line = `${response.status()} ${request.method()} ${request.url()}`;
  if (response.status() < 400) {
    session.network.push(line);
    return;
  }
  const body = await response.text().catch(() => '(body not available)');
  session.network.push(`${line}\n    request body: ${(request.postData() ?? '').slice(0, 2000)}\n    response body: ${body.slice(0, 2000)}`);
}

/** Runs in the page before Studio: keeps every toast (Sanity UI's [data-ui=Toast]) with its tone. */
function recordToasts(): void {
  const seen = new WeakSet<Element>();
  const toasts: { tone: string; text: string }[] = [];
  (window as unknown as { __toasts: typeof toasts }).__toasts = toasts;
  new MutationObserver(() => {
    for (const toast of document.querySelectorAll('[data-ui="Toast"]')) {
      const text = (toast as HTMLElement).innerText.trim();
      if (seen.has(toast) || text === '') continue;
      seen.add(toast);
      toasts.push({ tone: toast.getAttribute('data-tone') ?? '', text });
    }
  }).observe(document, { childList: true, subtree: true, characterData: true });
}
