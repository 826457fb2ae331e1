/**
 * The indexer on its own (SQLite event store and read models, anvil with the real GPv2 contracts), for
 * what the service-level tests cannot steer: a reorganisation deeper than a small reorg window while the
 * node fails some of the calls that reconcile the book with the chain, or those of the indexer's start.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEventStore, type OpenedEventStore } from '../../../src/orderbook/store/index.js';
import { logger } from '../../../src/shared/logger.js';
import { bootstrapDevChain, type DevChain } from '../../../src/wiring/gpv2.js';
import { Indexer } from '../../../src/orderbook/chain/indexer.js';
import { indexerStateFor } from '../../../src/orderbook/chain/indexer-state.js';
import { toQuantity, type ChainRpc, type RpcCall } from '../../../src/orderbook/chain/rpc.js';
import { orderStreamId } from '../../../src/orderbook/write/events.js';
import { readModelStoreFor } from '../../../src/orderbook/read/models/index.js';
import type { ReadModelStore } from '../../../src/orderbook/read/models/types.js';
import { ProjectionRunner } from '../../../src/orderbook/read/runner.js';
import { projections } from '../../../src/orderbook/read/projections/index.js';
import { gasFundedWallet, startTestChain, type TestChain } from '../../support/chain.js';
import { orderData } from '../../support/orders.js';
import { gpv2Domain } from '../../../src/orderbook/domain/eip712.js';
import { fundTrader, orderDigest, orderUid, signOrder, TestSolver } from '../../support/solver.js';
import { until } from '../../support/wait.js';
import { e18 } from '../../support/onchain.js';


describe('indexer: reconciling a deep reorganisation (anvil)', function () {
  this.timeout(60_000);
  let chain: TestChain;
  let dev: DevChain;
  let dataDir: string;
  let events: OpenedEventStore;
  let readModels: ReadModelStore;
  let runner: ProjectionRunner;
  let indexer: Indexer | undefined;

  before(async () => {
    chain = await startTestChain({ chainId: 1 });
    dev = await bootstrapDevChain(chain.rpc);
    dataDir = mkdtempSync(join(tmpdir(), 'ethgate-indexer-'));
    events = await openEventStore({ dataDir });
    readModels = readModelStoreFor(events);
    runner = new ProjectionRunner(events, readModels, projections, logger);
    await runner.start();
  });
  after(async () => {
    await indexer?.stop();
    await runner?.stop();
    await events?.close();
    await chain?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('does not take a failed block lookup for a removed block, and retries a failed reconciliation', async () => {
    // A node that fails, once, a batch of block lookups that asks for block `failing`.
    let failing: string | undefined;
    let failures = 0;
    const rpc: ChainRpc = {
      call: (method, params) => chain.rpc.call(method, params),
      async batch(calls: RpcCall[]) {
        if (failing && calls.some((c) => c.method === 'eth_getBlockByNumber' && c.params[0] === failing)) {
          failing = undefined;
          failures++;
          return calls.map(() => ({ error: { code: -32000, message: 'header not found' } }));
        }
        return chain.rpc.batch(calls);
      },
    };
    indexer = new Indexer({
      rpc,
      settlement: dev.settlement,
      events,
      state: indexerStateFor(events),
      logger,
      startBlock: 0,
      pollIntervalMs: 50,
      reorgWindow: 4,
    });
    indexer.start();

    // A settlement, then blocks above it.
    const domain = gpv2Domain(dev.chainId, dev.settlement);
    const trader = async (token: string) => {
      const w = await gasFundedWallet(chain.provider, chain);
      await fundTrader(token, w, e18(1), dev.vaultRelayer);
      return w;
    };
    const alice = await trader(dev.tokens.TKA);
    const bob = await trader(dev.tokens.TKB);
    const a = orderData({ sellToken: dev.tokens.TKA, buyToken: dev.tokens.TKB, sellAmount: e18(1), buyAmount: e18(1) });
    const b = orderData({ sellToken: dev.tokens.TKB, buyToken: dev.tokens.TKA, sellAmount: e18(1), buyAmount: e18(1) });
    const settled = await new TestSolver(chain.provider, dev).settle(
      [
        { order: a, scheme: 'eip712', signature: await signOrder(alice, domain, a, 'eip712') },
        { order: b, scheme: 'eip712', signature: await signOrder(bob, domain, b, 'eip712') },
      ],
      { [dev.tokens.TKA]: 1n, [dev.tokens.TKB]: 1n },
    );
    const uid = orderUid(orderDigest(domain, a), alice.address, a.validTo);
    for (let i = 0; i < 2; i++) await chain.send('evm_mine');
    const snapshot = await chain.send('evm_snapshot');
    for (let i = 0; i < 8; i++) await chain.send('evm_mine');
    await indexer.idle();
    assert.deepEqual((await events.readStream(orderStreamId(uid))).map((e) => e.type), ['TradeRecorded']);

    // A reorganisation deeper than the window of 4 that keeps the settlement block, while the node fails the
    // lookup of the settlement block once.
    failing = toQuantity(settled.blockNumber);
    await chain.send('evm_revert', [snapshot]);
    for (let i = 0; i < 10; i++) await chain.send('evm_mine');
    await until(() => failures > 0, 'the failed lookup', 20_000);
    await indexer.idle();

    // The trade stands: no revert of a fact whose block could not be read, and indexing goes on.
    assert.deepEqual((await events.readStream(orderStreamId(uid))).map((e) => e.type), ['TradeRecorded']);
    assert.equal(indexer.leading, true);
  });

  it('starts following even when the node fails its first answers', async () => {
    // A fresh store (no checkpoint) and no start block: the indexer asks for the head first.
    const dir = mkdtempSync(join(tmpdir(), 'ethgate-indexer-'));
    const store = await openEventStore({ dataDir: dir });
    let refused = 0;
    const rpc: ChainRpc = {
      async call(method, params) {
        if (method === 'eth_blockNumber' && refused < 2) {
          refused++;
          throw new Error('connection refused');
        }
        return chain.rpc.call(method, params);
      },
      batch: (calls) => chain.rpc.batch(calls),
    };
    const fresh = new Indexer({ rpc, settlement: dev.settlement, events: store, state: indexerStateFor(store), logger, pollIntervalMs: 50 });
    try {
      fresh.start();
      await fresh.idle();
      assert.equal(refused, 2);
      assert.equal(fresh.leading, true);
      assert.equal(fresh.indexedBlock, await chain.provider.getBlockNumber());
    } finally {
      await fresh.stop();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
