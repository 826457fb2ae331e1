/**
 * `npm run demo` against a running service, as a person runs it: the script (dist/src/cli/demo.js) as a
 * child process, its dev accounts trading through the CoW TradingSdk; within a minute their orders are in
 * the book and some have been traded by the dev solver, each within its signed limit; Ctrl-C (SIGINT)
 * stops it cleanly.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { HDNodeWallet, Mnemonic } from 'ethers';
import { repoPath } from '../../../src/shared/paths.js';
import type { Order } from '../../../src/generated/orderbook/order.js';
import type { Trade } from '../../../src/generated/orderbook/trade.js';
import { http } from '../../support/http.js';
import { startOnchainBook, type OnchainBook } from '../../support/onchain.js';
import { until } from '../../support/wait.js';

/** The accounts the demo trades with: anvil's dev accounts #2 to #5. */
const DEMO_ACCOUNTS = [2, 3, 4, 5].map((i) =>
  HDNodeWallet.fromMnemonic(Mnemonic.fromPhrase('test test test test test test test test test test test junk'), `m/44'/60'/0'/0/${i}`).address.toLowerCase(),
);

describe('npm run demo', function () {
  this.timeout(180_000);
  let book: OnchainBook;

  before(async () => {
    // The embedded default as `npm start` runs it: the dev tokens priced, the dev solver on.
    book = await startOnchainBook({ DEV_SOLVER: 'on' });
  });
  after(() => book?.stop());

  it('trades through the TradingSdk until Ctrl-C: orders posted, some traded by the dev solver within their limits', async () => {
    const output: string[] = [];
    const child = spawn(process.execPath, [repoPath('dist/src/cli/demo.js')], {
      cwd: repoPath(),
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ETHGATE_URL: book.service.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
    child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      let trades: Trade[] = [];
      await until(
        async () => {
          trades = [];
          for (const owner of DEMO_ACCOUNTS) trades.push(...((await http(`${book.service.url}/api/v2/trades?owner=${owner}`)).json as Trade[]));
          return trades.length >= 2 || child.exitCode !== null;
        },
        'two trades of the demo accounts',
        90_000,
      ).catch((err) => {
        throw new Error(`${(err as Error).message}; the demo wrote:\n${output.join('')}`);
      });
      assert.equal(child.exitCode, null, `the demo is still running:\n${output.join('')}`);
      for (const trade of trades) {
        const order = (await http(`${book.api}/orders/${trade.orderUid}`)).json as Order;
        // Posted by the SDK with the demo's app code, and traded within its signed limit.
        assert.match(order.fullAppData ?? '', /"appCode":"ethgate-demo"/);
        assert.ok(BigInt(trade.buyAmount) * BigInt(order.sellAmount) >= BigInt(order.buyAmount) * BigInt(trade.sellAmountBeforeFees), trade.orderUid);
      }
      assert.match(output.join(''), /approved the vault relayer/);
    } finally {
      child.kill('SIGINT');
    }
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running'), 15_000))]);
    assert.equal(code, 0, `Ctrl-C stops the demo:\n${output.join('').slice(-2000)}`);
    assert.match(output.join(''), /stopping/);
  });
});
