/**
 * The explorer on the playground the embedded default is (the dev solver on), in a real headless Chromium:
 * amounts in each token's own units with its symbol, read from the token (TKC has 6 decimals), prices in
 * token units, the event log page opening with the log's latest events, and a trade the dev solver makes
 * appearing without a reload.
 */
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { e18 } from '../support/onchain.js';
import { signOrder } from '../support/orders.js';
import { postOrder, startOrderbookService, TOKENS, type OrderbookHarness } from '../support/orderbook.js';
import { HANG_GUARD_MS } from '../support/wait.js';
import { launchBrowser, watchedPage, type WatchedPage } from '../support/browser.js';

const { TKA, TKC } = TOKENS;
const tkc = (n: number) => BigInt(Math.round(n * 1e6));

describe('explorer on the playground', function () {
  this.timeout(180_000);
  let h: OrderbookHarness;
  let browser: Browser;
  let w: WatchedPage;
  let ask: Awaited<ReturnType<typeof signOrder>>;

  before(async () => {
    h = await startOrderbookService({ DEV_SOLVER: 'on' });
    browser = await launchBrowser();
    w = await watchedPage(browser, h.service.url);
  });
  after(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('the event log page opens with the latest events of a log that already holds some', async () => {
    const alice = await h.trader({ [TKC]: tkc(100) });
    ask = await signOrder(alice, h.domain, { sellToken: TKC, buyToken: TKA, sellAmount: tkc(2.5), buyAmount: e18(1.25) });
    assert.equal((await postOrder(h.api, ask.body)).status, 201);
    const head = await h.book.events.head();
    assert.ok(head > 0);
    await w.page.goto(`${h.service.url}/#/events`);
    // Before any new event: the tail holds the log's newest position and the order just posted.
    const tail = w.page.getByTestId('event-tail');
    await tail.locator(`a[href="#/order/${ask.uid}"]`).waitFor({ timeout: HANG_GUARD_MS });
    assert.equal(Number(await tail.locator('tbody tr td').first().textContent()), head);
    assert.equal(await w.page.getByText('Waiting for events').count(), 0);
    await w.screenshot('playground-events');
  });

  it('shows amounts in token units with the symbols read from the tokens (TKC has 6 decimals)', async () => {
    const [base, quote] = [TKA, TKC].map((a) => a.toLowerCase()).sort();
    await w.page.goto(`${h.service.url}/#/markets/${base}/${quote}`);
    const row = w.page.locator(`tr[data-uid="${ask.uid}"]`);
    await row.getByText('2.5 TKC').waitFor({ timeout: HANG_GUARD_MS });
    await row.getByText('1.25 TKA').waitFor();
    // TKA sorts before TKC by address: the market is TKA / TKC, priced in TKC per TKA (2.5 / 1.25 = 2).
    assert.equal(base, TKA.toLowerCase());
    assert.match((await w.page.getByTestId('market-orders').locator('thead').textContent())!, /TKC per TKA/);
    assert.equal(await row.locator('td').nth(2).textContent(), '2');
    assert.match((await w.page.getByTestId('markets').textContent())!, /TKA \/ TKC/);
    await w.page.getByTestId('depth-chart').locator('canvas').first().waitFor();
    await w.screenshot('playground-market');

    await w.page.goto(`${h.service.url}/#/order/${ask.uid}`);
    const fields = w.page.getByTestId('order-fields');
    await fields.getByText('2.5 TKC').waitFor({ timeout: HANG_GUARD_MS });
    assert.match((await fields.textContent())!, /limit price0\.5 TKA per TKC/);
  });

  it('a trade of the dev solver appears live, in token units', async () => {
    await w.page.click('header a[href="#/trades"]');
    await w.page.getByRole('heading', { name: 'Trades' }).waitFor();
    let navigations = 0;
    w.page.on('framenavigated', () => navigations++);
    const bob = await h.trader({ [TKA]: e18(10) });
    const bid = await signOrder(bob, h.domain, { sellToken: TKA, buyToken: TKC, sellAmount: e18(1.25), buyAmount: tkc(2.4) });
    assert.equal((await postOrder(h.api, bid.body)).status, 201);
    const trades = w.page.getByTestId('trades');
    await trades.locator(`a[href="#/order/${ask.uid}"]`).waitFor({ timeout: HANG_GUARD_MS });
    await trades.locator(`a[href="#/order/${bid.uid}"]`).waitFor({ timeout: HANG_GUARD_MS });
    const rows = await trades.locator('tbody tr').allTextContents();
    // Alice sold all 2.5 TKC for at least 1.25 TKA; Bob sold 1.25 TKA.
    assert.ok(rows.some((r) => r.includes('2.5 TKC') && r.includes('1.25 TKA')), rows.join('\n'));
    assert.equal(navigations, 0, 'no reload');
    await w.screenshot('playground-trades');
  });

  it('had no console error and made no request to another host', () => {
    assert.deepEqual(w.problems, []);
  });
});
