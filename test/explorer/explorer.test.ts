/**
 * The explorer as a person uses it, in a real headless Chromium: the page is served on the main port
 * (GET / asking for HTML) while JSON-RPC on / works as before; an order posted through the API appears in
 * its market without a reload, its page shows its history, a cancellation changes its status, a settlement
 * on the embedded chain shows as a trade with its transaction hash, the event log tails live and verifies
 * by replay, and the gateway page shows heads advancing. No console errors, no request to another host.
 * Screenshots of each page go to test-artifacts/screenshots.
 */
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { signCancellation, signOrder } from '../support/orders.js';
import { deleteOrder, postOrder, settle, startOrderbookService, TOKENS, type OrderbookHarness } from '../support/orderbook.js';
import { request, postWithHost } from '../support/http.js';
import { HANG_GUARD_MS } from '../support/wait.js';
import { launchBrowser, watchedPage, type WatchedPage } from '../support/browser.js';
import { e18 } from '../support/onchain.js';

const { TKA, TKB, TKC } = TOKENS;
const market = (x: string, y: string) => (x.toLowerCase() < y.toLowerCase() ? [x, y] : [y, x]).map((a) => a.toLowerCase());

describe('explorer', function () {
  this.timeout(180_000);
  let h: OrderbookHarness;
  let browser: Browser;
  let w: WatchedPage;

  before(async () => {
    h = await startOrderbookService();
    browser = await launchBrowser();
    w = await watchedPage(browser, h.service.url);
  });
  after(async () => {
    await browser?.close();
    await h?.stop();
  });

  describe('served on the main port', () => {
    it('GET / asking for HTML gets the page; its files and the favicon come from the service', async () => {
      const page = await request(`${h.service.url}/`, { headers: { accept: 'text/html,application/xhtml+xml' } });
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type')!, /^text\/html/);
      assert.match(page.text, /<script type="module" src="\/explorer\/app.js">/);
      for (const path of ['/favicon.ico', '/explorer/app.js', '/explorer/vendor/preact.mjs', '/explorer/vendor/uPlot.esm.js']) {
        const res = await request(`${h.service.url}${path}`);
        assert.equal(res.status, 200, path);
      }
      const again = await request(`${h.service.url}/explorer/app.js`, { headers: { 'if-none-match': (await request(`${h.service.url}/explorer/app.js`)).headers.get('etag')! } });
      assert.equal(again.status, 304);
    });

    it('JSON-RPC on / and a GET / that does not ask for HTML behave as before', async () => {
      const rpc = await postWithHost(`${h.service.url}/`, 'mainnet.localhost', { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
      assert.equal(rpc.status, 200);
      assert.equal(rpc.json.result, '0x1');
      const html = await request(`${h.service.url}/`, { headers: { host: 'mainnet.localhost', accept: 'text/html' } });
      assert.notEqual(html.headers.get('content-type')?.startsWith('text/html'), true, 'a network host never gets the page');
      const json = await request(`${h.service.url}/`, { headers: { accept: 'application/json' } });
      assert.equal(json.status, 404);
      assert.equal(json.json.error.code !== undefined, true, 'the JSON-RPC error naming the networks');
      const post = await postWithHost(`${h.service.url}/`, '127.0.0.1', { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
      assert.equal(post.status, 404);
      assert.ok(post.json.error);
    });
  });

  describe('in Chromium', () => {
    let alice: Awaited<ReturnType<OrderbookHarness['trader']>>;
    let order: Awaited<ReturnType<typeof signOrder>>;

    it('an order posted through the API appears in its market live, without a reload', async () => {
      const [base, quote] = market(TKA, TKB);
      await w.page.goto(`${h.service.url}/#/markets/${base}/${quote}`);
      await w.page.getByTestId('live').getByText('live').waitFor();
      alice = await h.trader({ [TKA]: e18(100) });
      order = await signOrder(alice, h.domain, { sellToken: TKA, buyToken: TKB, sellAmount: e18(3), buyAmount: e18(2) });
      let navigations = 0;
      w.page.on('framenavigated', () => navigations++);
      assert.equal((await postOrder(h.api, order.body)).status, 201);
      const row = w.page.locator(`tr[data-uid="${order.uid}"]`);
      // How soon is a figure of `npm run bench -- live` (live.explorer_row); the deadline only ends a hang.
      await row.waitFor({ timeout: HANG_GUARD_MS });
      assert.equal(navigations, 0, 'no reload');
      assert.match(await row.textContent() ?? '', /open/);
      await w.page.getByTestId('depth-chart').locator('canvas').first().waitFor();
      await w.screenshot('markets');
    });

    it("opening the order shows its fields and history; a cancellation changes its status live", async () => {
      await w.page.locator(`tr[data-uid="${order.uid}"] a[href^="#/order/"]`).click();
      assert.equal(new URL(w.page.url()).hash, `#/order/${order.uid}`, 'the order has its own URL');
      await w.page.getByTestId('timeline').locator('li[data-type="OrderCreated"]').waitFor();
      assert.match((await w.page.getByTestId('order-fields').textContent())!, new RegExp(order.uid));
      assert.equal(await w.page.getByTestId('order-status').first().textContent(), 'open');
      assert.equal((await deleteOrder(h.api, order.uid, await signCancellation(alice, h.domain, order.uid))).status, 200);
      await w.page.getByTestId('order-status').getByText('cancelled').waitFor({ timeout: HANG_GUARD_MS });
      await w.page.getByTestId('timeline').locator('li[data-type="OrderCancelled"]').waitFor({ timeout: HANG_GUARD_MS });
      await w.screenshot('order');
    });

    it('a settlement on the embedded chain shows as a trade with its transaction hash', async () => {
      const trader = await h.trader({ [TKC]: e18(10) });
      const filled = await signOrder(trader, h.domain, { sellToken: TKC, buyToken: TKA, sellAmount: e18(1), buyAmount: e18(1) });
      assert.equal((await postOrder(h.api, filled.body)).status, 201);
      await w.page.goto(`${h.service.url}/#/order/${filled.uid}`);
      await w.page.getByTestId('timeline').locator('li[data-type="OrderCreated"]').waitFor({ timeout: HANG_GUARD_MS });
      const receipt = await settle(h, [{ body: filled.body }]);
      await w.page.getByTestId('order-status').getByText('fulfilled').waitFor({ timeout: HANG_GUARD_MS });
      await w.page.getByTestId('trade-tx').getByText(receipt.hash).waitFor({ timeout: HANG_GUARD_MS });
      await w.page.getByTestId('timeline').locator('li[data-type="TradeRecorded"]').waitFor();
      await w.screenshot('order-traded');

      await w.page.click('header a[href="#/trades"]');
      await w.page.getByTestId('trade-tx').getByText(receipt.hash).waitFor({ timeout: HANG_GUARD_MS });
      await w.screenshot('trades');

      await w.page.goto(`${h.service.url}/#/owner/${filled.owner}`);
      await w.page.getByTestId('owner-orders').locator(`a[href="#/order/${filled.uid}"]`).waitFor();
      await w.page.getByTestId('trade-tx').getByText(receipt.hash).waitFor();
      await w.screenshot('owner');
    });

    it('the event log tails live, shows the digests and verifies them by replay', async () => {
      await w.page.goto(`${h.service.url}/#/events`);
      await w.page.getByTestId('projections').locator('tbody tr').first().waitFor();
      const head = Number(await w.page.getByTestId('log-head').textContent());
      assert.equal(head, await h.book.events.head());
      const bob = await h.trader({ [TKA]: e18(10) });
      const next = await signOrder(bob, h.domain, { sellToken: TKA, buyToken: TKC, sellAmount: e18(1), buyAmount: e18(1) });
      assert.equal((await postOrder(h.api, next.body)).status, 201);
      await w.page.getByTestId('event-tail').locator(`a[href="#/order/${next.uid}"]`).waitFor({ timeout: HANG_GUARD_MS });
      // The digests follow (read again every two seconds after new events).
      await w.page.getByTestId('log-head').getByText(String(head + 1), { exact: true }).waitFor({ timeout: HANG_GUARD_MS });
      await w.page.getByTestId('verify').click();
      const result = w.page.getByTestId('verify-result');
      await result.waitFor({ timeout: 30_000 });
      assert.match((await result.textContent())!, /reproduces every digest/);
      await w.screenshot('events');
    });

    it("the gateway page shows each network's head advancing", async () => {
      await w.page.goto(`${h.service.url}/#/gateway`);
      const head = w.page.locator('[data-network="mainnet"]').getByTestId('network-head');
      await head.waitFor();
      const before = Number(await head.textContent());
      await h.provider.send('evm_mine', []);
      await h.provider.send('evm_mine', []);
      // A function, not a string: the page's CSP forbids evaluating strings as script, Playwright's too.
      await w.page.waitForFunction(
        (b) => Number((globalThis as any).document.querySelector('[data-network="mainnet"] [data-testid="network-head"]')?.textContent) > b,
        before,
        { timeout: HANG_GUARD_MS },
      );
      await w.screenshot('gateway');
    });

    it('had no console error and made no request to another host', () => {
      assert.deepEqual(w.problems, []);
    });
  });
});
