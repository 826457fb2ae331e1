/**
 * A chain reorganisation on anvil that removes a settlement block: evm_snapshot before the settlement,
 * evm_revert once it was indexed, then other blocks mined at the same heights. The book answers with
 * compensating ChainEventReverted events (the log keeps the TradeRecorded), the read models drop the
 * trades and restore the orders, and a replay of the log from position 0 gives the live digests.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Order } from '../../../src/generated/orderbook/order.js';
import type { Trade } from '../../../src/generated/orderbook/trade.js';
import type { ProjectionsStatus } from '../../../src/generated/orderbook/projections-status.js';
import { repoPath } from '../../../src/shared/paths.js';
import { orderCreation, orderData } from '../../support/orders.js';
import { fundTrader, invalidateOrder, setPreSignature } from '../../support/solver.js';
import { until } from '../../support/wait.js';
import {
  DEV_TOKEN_ADDRESSES as T,
  e18,
  eventually,
  settledTrade,
  signed,
  startOnchainBook,
  type OnchainBook,
} from '../../support/onchain.js';

const run = promisify(execFile);

describe('order book on chain: a reorganisation removes a settlement', function () {
  this.timeout(180_000);
  let book: OnchainBook;

  before(async () => {
    book = await startOnchainBook();
  });
  after(() => book?.stop());

  const eventTypes = (uid: string) => book.get(`/orders/${uid}/events`).then((r) => (r.json as { type: string }[]).map((e) => e.type));

  it('reverts the trades with compensating events, restores the orders, and replays to the same digests', async () => {
    const alice = await book.fundedTrader(T.TKA, e18(10));
    const bob = await book.fundedTrader(T.TKB, e18(10));
    const carol = await book.fundedTrader(T.TKA, e18(40));
    const sellA = await signed(alice, book.domain, { sellToken: T.TKA, buyToken: T.TKB, sellAmount: e18(10), buyAmount: e18(10) });
    const sellB = await signed(bob, book.domain, { sellToken: T.TKB, buyToken: T.TKA, sellAmount: e18(10), buyAmount: e18(10) });
    // A partially fillable order filled in two settlements; only the second one is reorganised away.
    const partial = await signed(carol, book.domain, {
      sellToken: T.TKA,
      buyToken: T.TKB,
      sellAmount: e18(40),
      buyAmount: e18(40),
      partiallyFillable: true,
    });
    for (const placed of [sellA, sellB, partial]) await book.place(placed);
    const dave = await book.fundedTrader(T.TKB, e18(30));
    const counter1 = await signed(dave, book.domain, { sellToken: T.TKB, buyToken: T.TKA, sellAmount: e18(10), buyAmount: e18(10) });
    const counter2 = await signed(dave, book.domain, { sellToken: T.TKB, buyToken: T.TKA, sellAmount: e18(10), buyAmount: e18(10), appData: '0x' + '01'.repeat(32) });
    await book.place(counter1);
    await book.place(counter2);
    const prices = { [T.TKA]: 1n, [T.TKB]: 1n };

    // Other chain facts in the doomed blocks: an on-chain invalidation and a presignature.
    const erin = await book.fundedTrader(T.TKA, e18(5));
    const invalidated = await signed(erin, book.domain, { sellToken: T.TKA, buyToken: T.TKB, sellAmount: e18(5), buyAmount: e18(5) });
    await book.place(invalidated);
    const frank = await book.fundedTrader(T.TKA, e18(5));
    const presignData = orderData({ sellToken: T.TKA, buyToken: T.TKB, sellAmount: e18(5), buyAmount: e18(5) });
    const presigned = (await book.post('/orders', { ...orderCreation(presignData, 'presign', '0x'), from: frank.address })).json as string;

    const kept = await book.solver.settle([settledTrade(partial, e18(10)), settledTrade(counter1)], prices);
    const snapshot = await book.control('evm_snapshot');
    const removed = await book.solver.settle(
      [settledTrade(sellA), settledTrade(sellB), settledTrade(partial, e18(10)), settledTrade(counter2)],
      prices,
    );
    await invalidateOrder(book.settlement, erin, invalidated.uid);
    await setPreSignature(book.settlement, frank, presigned, true);
    await book.indexed();
    assert.equal((await book.order(invalidated.uid)).status, 'cancelled');
    assert.equal((await book.order(presigned)).status, 'open');
    await eventually<Trade[]>(book, `/trades?orderUid=${sellA.uid}`, (t) => t.length === 1, 'the trade of the doomed block');
    assert.equal((await book.order(sellA.uid)).status, 'fulfilled');
    assert.equal((await book.order(partial.uid)).executedSellAmount, e18(20).toString());

    // The reorganisation: the three blocks go, four others take their heights and the next.
    assert.equal(await book.control('evm_revert', [snapshot]), true);
    for (let i = 0; i < 4; i++) await book.control('evm_mine');
    const replaced = await book.anvil.getBlock(removed.blockNumber);
    assert.notEqual(replaced?.hash, removed.blockHash, 'another block stands at the settlement height');
    await book.indexed();

    await eventually<Trade[]>(book, `/trades?orderUid=${sellA.uid}`, (t) => t.length === 0, 'the removed trade gone');
    assert.deepEqual((await book.get(`/trades?orderUid=${sellB.uid}`)).json, []);
    const carolsTrades = (await book.get(`/trades?orderUid=${partial.uid}`)).json as Trade[];
    assert.deepEqual(carolsTrades.map((t) => t.transactionHash), [kept.hash.toLowerCase()], 'the earlier settlement stays');

    for (const uid of [sellA.uid, sellB.uid, counter2.uid]) {
      const restored = await book.order(uid);
      assert.equal(restored.status, 'open', uid);
      assert.deepEqual(
        [restored.executedSellAmount, restored.executedSellAmountBeforeFees, restored.executedBuyAmount, restored.executedFeeAmount],
        ['0', '0', '0', '0'],
      );
      assert.deepEqual(await eventTypes(uid), ['OrderCreated', 'TradeRecorded', 'ChainEventReverted'], 'the log is never rewritten');
    }
    const restoredPartial = await book.order(partial.uid);
    assert.equal(restoredPartial.executedSellAmount, e18(10).toString());
    assert.deepEqual(await eventTypes(partial.uid), ['OrderCreated', 'TradeRecorded', 'TradeRecorded', 'ChainEventReverted']);
    const reverted = ((await book.get(`/orders/${sellA.uid}/events`)).json as { type: string; data: any }[]).at(-1)!;
    assert.deepEqual(reverted.data.chain.blockHash, removed.blockHash.toLowerCase());
    assert.equal(reverted.data.reverted, 'TradeRecorded');

    // The invalidation and the presignature are undone too.
    assert.deepEqual([(await book.order(invalidated.uid)).status, (await book.order(invalidated.uid)).invalidated], ['open', false]);
    assert.deepEqual(await eventTypes(invalidated.uid), ['OrderCreated', 'OrderInvalidated', 'ChainEventReverted']);
    assert.equal((await book.order(presigned)).status, 'presignaturePending');
    assert.deepEqual(await eventTypes(presigned), ['OrderCreated', 'OrderPresigned', 'ChainEventReverted']);

    // Solvable again: the owners' balances are read again (no new block needed) and fund them.
    const back = [sellA.uid, sellB.uid, partial.uid, counter2.uid, invalidated.uid];
    const list = await eventually<{ uid: string }[]>(book, '/solvable_orders', (l) => back.every((uid) => l.some((o) => o.uid === uid)), 'the orders solvable again');
    assert.ok(!list.some((o) => o.uid === presigned), 'no presignature on the new chain');

    // The new chain: the same orders settle again in another block, and the book shows that one.
    const again = await book.solver.settle([settledTrade(sellA), settledTrade(sellB)], prices);
    await book.indexed();
    const newTrades = await eventually<Trade[]>(book, `/trades?orderUid=${sellA.uid}`, (t) => t.length === 1, 'the trade on the new chain');
    assert.deepEqual([newTrades[0].transactionHash, newTrades[0].blockNumber], [again.hash.toLowerCase(), again.blockNumber]);
    assert.equal((await book.order(sellA.uid)).status, 'fulfilled');

    // Auditors: a replay of the log from position 0 gives the digests the live read models have.
    const live = (await book.get('/projections')).json as ProjectionsStatus;
    assert.equal(live.head, await book.orderbook.events.head());
    const { stdout } = await run(process.execPath, [repoPath('dist/src/cli/replay.js'), '--json'], {
      env: { PATH: process.env.PATH, DATA_DIR: book.service.dataDir, LOG_LEVEL: 'silent' },
    });
    const replayed = JSON.parse(stdout) as { position: number; digests: Record<string, { position: number; documents: number; sha256: string }> };
    assert.equal(replayed.position, live.head);
    for (const [name, digest] of Object.entries(replayed.digests)) {
      const { version: _version, ...liveDigest } = live.projections[name];
      assert.deepEqual(liveDigest, digest, `read model ${name}`);
    }
    assert.deepEqual(Object.keys(replayed.digests).sort(), Object.keys(live.projections).sort());
  });
});

describe('order book on chain: the embedded chain restarts empty', function () {
  this.timeout(180_000);
  let book: OnchainBook;

  before(async () => {
    book = await startOnchainBook();
  });
  after(() => book?.stop());

  it('reconciles trades deeper than the reorg window with the new chain, and indexes the new chain', async () => {
    const alice = await book.trader();
    const bob = await book.trader();
    await fundTrader(T.TKA, alice, e18(10), book.vaultRelayer);
    await fundTrader(T.TKB, bob, e18(10), book.vaultRelayer);
    const sellA = await signed(alice, book.domain, { sellToken: T.TKA, buyToken: T.TKB, sellAmount: e18(10), buyAmount: e18(10) });
    const sellB = await signed(bob, book.domain, { sellToken: T.TKB, buyToken: T.TKA, sellAmount: e18(10), buyAmount: e18(10) });
    await book.place(sellA);
    await book.place(sellB);
    const settled = await book.solver.settle([settledTrade(sellA), settledTrade(sellB)], { [T.TKA]: 1n, [T.TKB]: 1n });
    // Deeper than the follower remembers (64 blocks): the removed blocks can only be found from the book.
    for (let i = 0; i < 70; i++) await book.control('evm_mine');
    await book.indexed();
    await eventually<Trade[]>(book, `/trades?orderUid=${sellA.uid}`, (t) => t.length === 1, 'the trade indexed');

    const anvil = book.service.gateway.network('mainnet').anvil!;
    const restarted = new Promise((resolve) => anvil.once('restarted', resolve));
    anvil.crash();
    await restarted;

    // The service deploys its contracts again at the same addresses; the trade's block is gone.
    await eventually<Trade[]>(book, `/trades?orderUid=${sellA.uid}`, (t) => t.length === 0, 'the trade reverted', 60_000);
    for (const uid of [sellA.uid, sellB.uid]) {
      const events = ((await book.get(`/orders/${uid}/events`)).json as { type: string; data: any }[]);
      assert.deepEqual(events.map((e) => e.type), ['OrderCreated', 'TradeRecorded', 'ChainEventReverted']);
      assert.equal(events[2].data.chain.blockHash, settled.blockHash.toLowerCase());
      const restored = (await book.get(`/orders/${uid}`)).json as Order;
      assert.deepEqual([restored.status, restored.executedSellAmount], ['open', '0']);
    }

    // The new chain is indexed from its start: the same orders settle there again.
    await until(async () => (await book.anvil.getCode(book.settlement)) !== '0x', 'the contracts deployed again', 30_000);
    await until(async () => (await book.anvil.getCode(T.TKB)) !== '0x', 'the tokens deployed again', 30_000);
    for (const trader of [alice, bob]) await book.control('anvil_setBalance', [trader.address, '0x56bc75e2d63100000']);
    await fundTrader(T.TKA, alice, e18(10), book.vaultRelayer);
    await fundTrader(T.TKB, bob, e18(10), book.vaultRelayer);
    const again = await book.solver.settle([settledTrade(sellA), settledTrade(sellB)], { [T.TKA]: 1n, [T.TKB]: 1n });
    await book.indexed();
    const trades = await eventually<Trade[]>(book, `/trades?orderUid=${sellB.uid}`, (t) => t.length === 1, 'the trade on the new chain');
    assert.deepEqual([trades[0].transactionHash, trades[0].blockNumber], [again.hash.toLowerCase(), again.blockNumber]);
    assert.equal((await book.order(sellB.uid)).status, 'fulfilled');
  });
});
