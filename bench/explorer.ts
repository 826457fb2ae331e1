/**
 * The explorer with 10,000 open orders (`npm run bench -- explorer`): the service in-process with a log of
 * synthetic orders (test/support/synthetic-log.ts, creations only, valid for ever), and a headless Chromium
 * opening / as a person would. Figures: the first paint and first contentful paint (the browser's own
 * Paint Timing entries), and the time until the markets page shows its depth chart and order table with
 * every open order loaded (from navigation start).
 */
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../test/support/service.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser, SCREENSHOTS } from '../test/support/browser.js';
import { orderEvents } from '../test/support/synthetic-log.js';
import { orderStreamId } from '../src/orderbook/write/events.js';
import { round, type Figure } from './tools.js';

const OPEN_ORDERS = 10_000;

export async function benchExplorer(): Promise<Record<string, Figure>> {
  let service: TestService | undefined;
  let browser: Browser | undefined;
  try {
    service = await startTestService({ ORDERBOOK: 'on', MIN_VALID_TO_SECONDS: '1' });
    const book = service.orderbook!;
    const appends: Promise<unknown>[] = [];
    for (let n = 0; n < OPEN_ORDERS; n++) {
      const [created] = orderEvents(n);
      appends.push(book.events.append(orderStreamId((created.data as { uid: string }).uid), [created], 'no_stream'));
    }
    await Promise.all(appends);
    await book.runner.waitFor(await book.events.head());
    const listed = (await (await fetch(`${service.url}/api/v1/orders?includeInsufficientBalance=true`)).json()) as unknown[];
    console.error(`explorer: ${listed.length} open orders on the first page of GET /api/v1/orders (the explorer follows the pages)`);

    browser = await launchBrowser();
    mkdirSync(SCREENSHOTS, { recursive: true });
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    // One visit first, so that the figures are those of a page whose files are in the browser's cache.
    await page.goto(`${service.url}/`);
    await page.locator('[data-testid="market-orders"] tbody tr').first().waitFor({ timeout: 60_000 });
    const runs: { fp: number; fcp: number; ready: number }[] = [];
    for (let i = 0; i < 3; i++) {
      await page.goto(`${service.url}/?run=${i}`);
      await page.locator('[data-testid="market-orders"] tbody tr').first().waitFor({ timeout: 60_000 });
      await page.locator('[data-testid="depth-chart"] canvas').first().waitFor();
      runs.push(
        await page.evaluate(`(() => {
          const paint = Object.fromEntries(performance.getEntriesByType('paint').map((e) => [e.name, e.startTime]));
          return { fp: paint['first-paint'], fcp: paint['first-contentful-paint'], ready: performance.now() };
        })()`),
      );
    }
    await page.screenshot({ path: join(SCREENSHOTS, 'explorer-10k-orders.png') });
    const median = (key: 'fp' | 'fcp' | 'ready') => runs.map((r) => r[key]).sort((a, b) => a - b)[1];
    const figures: Record<string, Figure> = {
      'explorer.first_paint_10k_orders': { value: round(median('fp')), unit: 'ms' },
      'explorer.first_contentful_paint_10k_orders': { value: round(median('fcp')), unit: 'ms' },
      'explorer.markets_ready_10k_orders': { value: round(median('ready')), unit: 'ms' },
    };
    console.error(`explorer: ${JSON.stringify(runs.map((r) => ({ fp: round(r.fp), fcp: round(r.fcp), ready: round(r.ready) })))}`);
    return figures;
  } finally {
    await browser?.close();
    await service?.stop();
  }
}
