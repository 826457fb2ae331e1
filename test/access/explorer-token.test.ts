/**
 * The explorer with OPERATOR_TOKEN set, in a real Chromium, against the service as a process: the gateway
 * page (GET /status) and "Verify by replay" are operator routes, so the page asks for the token, keeps it
 * for the tab only (sessionStorage, not localStorage), and then works; another tab (a fresh context) is
 * asked again. Apart from the 401 that made it ask, the page has no console error under its CSP.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { launchBrowser, watchedPage, type WatchedPage } from '../support/browser.js';
import { startServiceProcess, removeDataDir, type ServiceProcess } from '../support/service-process.js';

describe('access: the explorer asks for the operator token (Chromium, service process)', function () {
  this.timeout(120_000);
  const token = `operator-${randomBytes(12).toString('hex')}`;
  let service: ServiceProcess;
  let browser: Browser;
  let w: WatchedPage;

  before(async () => {
    service = await startServiceProcess({ env: { NETWORKS: 'mainnet', ORDERBOOK: 'on', OPERATOR_TOKEN: token } });
    browser = await launchBrowser();
    w = await watchedPage(browser, service.url);
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
    if (service) removeDataDir(service.dataDir);
  });

  /** The page's problems but the 401s of operator routes asked without the token (and the console's note of them). */
  const unexpected = (problems: string[]) => problems.filter((p) => !/401|Unauthorized/.test(p));

  it('the gateway page asks for the token, keeps it for the tab, and then shows the heads', async () => {
    await w.page.goto(`${service.url}/#/gateway`);
    await w.page.getByTestId('token-form').waitFor();
    await w.page.getByTestId('token-input').fill(token);
    await w.page.getByTestId('token-submit').click();
    await w.page.locator('[data-network="mainnet"] [data-testid="network-head"]').waitFor();
    assert.equal(await w.page.getByTestId('token-form').count(), 0);
    const stored = await w.page.evaluate(() => ({
      session: (globalThis as any).sessionStorage.getItem('ethgate.operatorToken'),
      local: (globalThis as any).localStorage.length,
    }));
    assert.deepEqual(stored, { session: token, local: 0 });
    await w.screenshot('explorer-token-gateway');
  });

  it('verify by replay uses the token of the tab', async () => {
    await w.page.goto(`${service.url}/#/events`);
    await w.page.getByTestId('verify').click();
    const result = w.page.getByTestId('verify-result');
    await result.waitFor({ timeout: 30_000 });
    assert.match((await result.textContent()) ?? '', /Replay reproduces every digest/);
  });

  it('another tab is asked again; the page had no other problem', async () => {
    const other = await watchedPage(browser, service.url);
    await other.page.goto(`${service.url}/#/gateway`);
    await other.page.getByTestId('token-form').waitFor();
    await other.page.context().close();
    assert.deepEqual(unexpected(w.problems), []);
    assert.deepEqual(unexpected(other.problems), []);
  });
});
