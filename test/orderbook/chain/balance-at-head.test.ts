/**
 * The balance check of order creation against the head source: an owner's amount read at the newest block
 * the head source reported decides a new order without a call to the node when it funds it, and when it
 * does not, the node's newest block is read before the order is refused. The service runs on an external
 * anvil over HTTP only, its head polled every ten minutes: after its first poll the head source reports
 * no block the test mines, as a node whose heads are late.
 */
import assert from 'node:assert/strict';
import type { Wallet } from 'ethers';
import { bootstrapDevChain, type DevChain } from '../../../src/wiring/gpv2.js';
import { gpv2Domain } from '../../../src/orderbook/domain/eip712.js';
import { gasFundedWallet, startTestChain, type TestChain } from '../../support/chain.js';
import { startTestService, type TestService } from '../../support/service.js';
import { signOrder } from '../../support/orders.js';
import { fundTrader } from '../../support/solver.js';
import { postJson } from '../../support/http.js';
import { readMetrics } from '../../support/upstreams.js';
import { e18 } from '../../support/onchain.js';

describe('order book: the balance check at the head the head source reported', function () {
  this.timeout(120_000);
  let chain: TestChain;
  let dev: DevChain;
  let service: TestService;
  let alice: Wallet;

  before(async () => {
    chain = await startTestChain({ chainId: 1 });
    dev = await bootstrapDevChain(chain.rpc);
    alice = await gasFundedWallet(chain.provider, chain);
    await fundTrader(dev.tokens.TKA, alice, e18(10), dev.vaultRelayer);
    service = await startTestService({
      ORDERBOOK: 'on',
      UPSTREAM_MAINNET: chain.anvil.httpUrl,
      SETTLEMENT_CONTRACT: dev.settlement,
      INDEXER_START_BLOCK: '0',
      HEAD_POLL_INTERVAL_MS: '600000',
    });
  });
  after(async () => {
    await service?.stop();
    await chain?.stop();
  });

  const domain = () => gpv2Domain(dev.chainId, dev.settlement);
  const order = (owner: Wallet, sellAmount: bigint, validTo = Math.floor(Date.now() / 1000) + 3600) =>
    signOrder(owner, domain(), { sellToken: dev.tokens.TKA, buyToken: dev.tokens.TKB, sellAmount, buyAmount: sellAmount, validTo });
  const post = (body: unknown) => postJson(`${service.url}/api/v1/orders`, body);
  /** Balance reads (eth_call) and head lookups (eth_blockNumber) the gateway sent upstream so far. */
  async function chainReads(): Promise<number> {
    const metrics = await readMetrics(service.url);
    return ['eth_call', 'eth_blockNumber'].reduce((n, method) => n + metrics.value('ethgate_upstream_calls_total', { network: 'mainnet', method }), 0);
  }
  const reportedHead = () => service.orderbook!.chain.heads.latest?.number;

  it('decides at once with an amount read at the reported head that funds the order', async () => {
    const head = reportedHead();
    assert.equal(head, await chain.provider.getBlockNumber(), 'the head source has polled the head once');

    // The first order of alice reads her amount at the node's newest block: the reported head.
    const first = await order(alice, e18(4));
    assert.equal((await post(first.body)).status, 201);
    const reads = await chainReads();

    const second = await order(alice, e18(5));
    const res = await post(second.body);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json, second.uid);
    assert.equal(await chainReads(), reads, 'nothing asked of the node for the second order');
  });

  it('reads the node again before refusing: an owner funded in a block the head source has not reported is accepted', async () => {
    const bob = await gasFundedWallet(chain.provider, chain);
    const head = reportedHead();

    // Nothing yet: refused, and bob's amount (0) is now known at the head the head source reported.
    const refused = await post((await order(bob, e18(2))).body);
    assert.deepEqual([refused.status, refused.json.errorType], [400, 'InsufficientBalance']);

    await fundTrader(dev.tokens.TKA, bob, e18(3), dev.vaultRelayer);
    assert.ok((await chain.provider.getBlockNumber()) > head!, 'the chain moved on');
    assert.equal(reportedHead(), head, 'the head source has not reported the funding blocks');

    const funded = await order(bob, e18(2), Math.floor(Date.now() / 1000) + 3601);
    const res = await post(funded.body);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json, funded.uid);
  });
});
