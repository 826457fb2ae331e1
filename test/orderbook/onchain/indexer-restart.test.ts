/**
 * The indexer survives kill -9. The chain is an external anvil started by the test (so it outlives the
 * service), with the GPv2 contracts bootstrapped on it; the service is a child process pointed at it with
 * UPSTREAM_MAINNET + SETTLEMENT_CONTRACT and its own DATA_DIR. Trades are settled before the kill, while
 * the service is down, and while it catches up after a restart (killed again then); in the end every
 * Trade log is in the book exactly once.
 */
import assert from 'node:assert/strict';
import type { Trade } from '../../../src/generated/orderbook/trade.js';
import { bootstrapDevChain, type DevChain } from '../../../src/wiring/gpv2.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { assertEachTradeOnce, externalChainEnv, indexedTo, Market } from '../../support/external-market.js';
import { http } from '../../support/http.js';
import { removeDataDir, startServiceProcess, type ServiceProcess } from '../../support/service-process.js';
import { until } from '../../support/wait.js';

describe('order book on chain: the indexer after kill -9', function () {
  this.timeout(240_000);
  let chain: TestChain;
  let dev: DevChain;
  let service: ServiceProcess | undefined;
  let dataDir: string | undefined;

  before(async () => {
    chain = await startTestChain({ chainId: 1 });
    dev = await bootstrapDevChain(chain.rpc);
  });
  after(async () => {
    await service?.kill9();
    if (dataDir) removeDataDir(dataDir);
    await chain?.stop();
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed' && service) console.log(service.output.join('').slice(-20_000));
  });

  it('misses no trade and records none twice across kills, downtime and restarts', async () => {
    const env = externalChainEnv(chain, dev);
    service = await startServiceProcess({ env });
    dataDir = service.dataDir;
    const port = Number(new URL(service.url).port);
    const market = new Market(chain, dev);
    const pairs = [];
    for (let i = 0; i < 6; i++) pairs.push(await market.pair(service.url));

    // Indexed while running.
    await market.settle(pairs[0]);
    const head = await market.settle(pairs[1]);
    await indexedTo(service, head);
    assert.equal(((await http(`${service.url}/api/v1/trades`)).json as Trade[]).length, 4);

    // Settled while the service is dead.
    await service.kill9();
    await market.settle(pairs[2]);
    await market.settle(pairs[3]);

    // Restarted; killed again as soon as it has indexed some of what it missed, then more settled.
    service = await startServiceProcess({ env, dataDir, port });
    await until(async () => ((await http(`${service!.url}/api/v1/trades`)).json as Trade[]).length > 4, 'catching up', 60_000);
    await service.kill9();
    await market.settle(pairs[4]);

    service = await startServiceProcess({ env, dataDir, port });
    const last = await market.settle(pairs[5]);
    await indexedTo(service, last);
    await assertEachTradeOnce(service.url, market.settled);
    assert.equal(market.settled.length, 12);
  });
});
