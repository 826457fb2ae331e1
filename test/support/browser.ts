/**
 * A real headless Chromium (Debian's `chromium` package, driven by playwright-core) for the explorer's
 * tests: each page records console errors, uncaught exceptions, failed requests and any request to a host
 * other than the service's, so that a test can assert there were none; screenshots go to
 * test-artifacts/screenshots (kept by CI, ignored by git).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { repoPath } from '../../src/shared/paths.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = repoPath('test-artifacts/screenshots');

export interface WatchedPage {
  page: Page;
  /** Console errors, page errors, failed requests and requests to other hosts, as text. */
  problems: string[];
  screenshot(name: string): Promise<string>;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

export async function watchedPage(browser: Browser, origin: string): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  const host = new URL(origin).host;
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('request', (req) => {
    const url = new URL(req.url());
    if ((url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'ws:') && url.host !== host) {
      problems.push(`request to another host: ${req.url()}`);
    }
  });
  page.on('requestfailed', (req) => {
    // An EventSource torn down by navigation or by the end of the test is not a failure of the page.
    if (req.resourceType() === 'eventsource') return;
    problems.push(`request failed: ${req.url()} (${req.failure()?.errorText})`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()} for ${res.url()}`);
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    page,
    problems,
    async screenshot(name) {
      const path = join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
  };
}
