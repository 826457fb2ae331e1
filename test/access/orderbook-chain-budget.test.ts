/**
 * The order book's chain calls go through the network's relay under a budget of their own
 * (src/wiring/orderbook-network.ts): a final block read twice is answered the second time from the
 * gateway's cache, identical reads in flight are coalesced into one upstream call, and calls over the
 * budget wait in its queue, one more than the queue holds failing at once; /metrics shows it. Against the
 * real gateway of a service on an embedded anvil.
 */
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../support/service.js';
import { readMetrics } from '../support/upstreams.js';
import { until } from '../support/wait.js';
import { budgetedRelay } from '../../src/wiring/orderbook-network.js';
import { chainRpcOver, ChainError } from '../../src/orderbook/chain/rpc.js';

describe("access: the order book's chain calls through the relay, under a budget", function () {
  this.timeout(60_000);
  let service: TestService;

  before(async () => {
    service = await startTestService({ CACHE_REORG_DEPTH: '2' });
  });
  after(() => service?.stop());

  it('reads a final block from the cache the second time, and coalesces identical reads in flight', async () => {
    const entry = service.gateway.entry('mainnet');
    const rpc = chainRpcOver(budgetedRelay(entry, { callsPerSecond: 0, queue: 0 }));
    await rpc.call('anvil_mine', ['0x10']);
    await until(() => (entry.network.head ?? 0) >= 16, 'the gateway saw the new head');
    const { hits } = entry.relay.cacheCounts;
    const first = await rpc.call('eth_getBlockByNumber', ['0x3', false]);
    const second = await rpc.call('eth_getBlockByNumber', ['0x3', false]);
    assert.deepEqual(second, first);
    assert.equal(entry.relay.cacheCounts.hits, hits + 1, 'the second read came from the cache');

    const before = await readMetrics(service.url);
    const same = await Promise.all(Array.from({ length: 5 }, () => rpc.call('eth_getBalance', ['0x' + '42'.repeat(20), 'latest'])));
    assert.equal(new Set(same).size, 1);
    const after = await readMetrics(service.url);
    assert.ok(
      after.value('ethgate_coalesced_calls_total', { network: 'mainnet' }) - before.value('ethgate_coalesced_calls_total', { network: 'mainnet' }) >= 4,
      'four of the five identical reads shared the first one',
    );
  });

  it('lets calls over the budget wait in its queue, refuses one more, and counts both', async () => {
    const rpc = chainRpcOver(budgetedRelay(service.gateway.entry('mainnet'), { callsPerSecond: 2, queue: 1 }));
    const before = await readMetrics(service.url);
    const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => rpc.call('eth_chainId', [])));
    const sent = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    // Two within the second's budget, one waiting for the next second, one refused at once.
    assert.equal(sent.length, 3, JSON.stringify(outcomes));
    assert.equal(refused.length, 1);
    assert.ok(refused[0].reason instanceof ChainError);
    assert.match(refused[0].reason.message, /chain budget is spent/);
    const after = await readMetrics(service.url);
    const delta = (outcome: string) =>
      after.value('ethgate_orderbook_chain_calls_total', { outcome }) - before.value('ethgate_orderbook_chain_calls_total', { outcome });
    assert.equal(delta('sent'), 3);
    assert.equal(delta('refused'), 1);
    assert.equal(after.value('ethgate_orderbook_chain_calls_waiting'), 0);
  });
});
