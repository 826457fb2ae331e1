/**
 * A chain reorganisation on anvil that removes a settlement block: evm_snapshot before the settlement,
 * evm_revert once it was indexed, then other blocks mined at the same heights. The book answers with
 * compensating ChainEventReverted events (the log keeps the TradeRecorded), the read models drop the
 * trades and restore the orders, and a replay of the log from position 0 gives the live digests.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Wallet } from 'ethers';
import type { Order } from '../../../src/generated/orderbook/order.js';
import type { Trade } from '../../../src/generated/orderbook/trade.js';
import type { ProjectionsStatus } from '../../../src/generated/orderbook/projections-status.js';
import { repoPath } from '../../../src/paths.js';
import { fundTrader } from '../../support/solver.js';
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

  async function funded(token: string, amount: bigint): Promise<Wallet> {
    const wallet = await book.trader();
    await fundTrader(token, wallet, amount, book.vaultRelayer);
    return wallet;
  }

  const order = (uid: string) => book.get(`/orders/${uid}`).then((r) => r.json as Order);
  const eventTypes = (uid: string) => book.get(`/orders/${uid}/events`).then((r) => (r.json as { type: string }[]).map((e) => e.type));

  it('reverts the trades with compensating events, restores the orders, and replays to the same digests', async () => {
    const alice = await funded(T.TKA, e18(10));
    const bob = await funded(T.TKB, e18(10));
    const carol = await funded(T.TKA, e18(40));
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
    const dave = await funded(T.TKB, e18(30));
    const counter1 = await signed(dave, book.domain, { sellToken: T.TKB, buyToken: T.TKA, sellAmount: e18(10), buyAmount: e18(10) });
    const counter2 = await signed(dave, book.domain, { sellToken: T.TKB, buyToken: T.TKA, sellAmount: e18(10), buyAmount: e18(10), appData: '0x' + '01'.repeat(32) });
    await book.place(counter1);
    await book.place(counter2);
    const prices = { [T.TKA]: 1n, [T.TKB]: 1n };

    const kept = await book.solver.settle([settledTrade(partial, e18(10)), settledTrade(counter1)], prices);
    const snapshot = await book.control('evm_snapshot');
    const removed = await book.solver.settle(
      [settledTrade(sellA), settledTrade(sellB), settledTrade(partial, e18(10)), settledTrade(counter2)],
      prices,
    );
    await book.indexed();
    await eventually<Trade[]>(book, `/trades?orderUid=${sellA.uid}`, (t) => t.length === 1, 'the trade of the doomed block');
    assert.equal((await order(sellA.uid)).status, 'fulfilled');
    assert.equal((await order(partial.uid)).executedSellAmount, e18(20).toString());

    // The reorganisation: the settlement block goes, two other blocks take its height and the next.
    assert.equal(await book.control('evm_revert', [snapshot]), true);
    await book.control('evm_mine');
    await book.control('evm_mine');
    const replaced = await book.anvil.getBlock(removed.blockNumber);
    assert.notEqual(replaced?.hash, removed.blockHash, 'another block stands at the settlement height');
    await book.indexed();

    await eventually<Trade[]>(book, `/trades?orderUid=${sellA.uid}`, (t) => t.length === 0, 'the removed trade gone');
    assert.deepEqual((await book.get(`/trades?orderUid=${sellB.uid}`)).json, []);
    const carolsTrades = (await book.get(`/trades?orderUid=${partial.uid}`)).json as Trade[];
    assert.deepEqual(carolsTrades.map((t) => t.transactionHash), [kept.hash.toLowerCase()], 'the earlier settlement stays');

    for (const uid of [sellA.uid, sellB.uid, counter2.uid]) {
      const restored = await order(uid);
      assert.equal(restored.status, 'open', uid);
      assert.deepEqual(
        [restored.executedSellAmount, restored.executedSellAmountBeforeFees, restored.executedBuyAmount, restored.executedFeeAmount],
        ['0', '0', '0', '0'],
      );
      assert.deepEqual(await eventTypes(uid), ['OrderCreated', 'TradeRecorded', 'ChainEventReverted'], 'the log is never rewritten');
    }
    const restoredPartial = await order(partial.uid);
    assert.equal(restoredPartial.executedSellAmount, e18(10).toString());
    assert.deepEqual(await eventTypes(partial.uid), ['OrderCreated', 'TradeRecorded', 'TradeRecorded', 'ChainEventReverted']);
    const reverted = ((await book.get(`/orders/${sellA.uid}/events`)).json as { type: string; data: any }[]).at(-1)!;
    assert.deepEqual(reverted.data.chain.blockHash, removed.blockHash.toLowerCase());
    assert.equal(reverted.data.reverted, 'TradeRecorded');

    // Solvable again: the owners' balances are read again (no new block needed) and fund them.
    const back = [sellA.uid, sellB.uid, partial.uid, counter2.uid];
    await eventually<{ uid: string }[]>(book, '/solvable_orders', (list) => back.every((uid) => list.some((o) => o.uid === uid)), 'the orders solvable again');

    // The new chain: the same orders settle again in another block, and the book shows that one.
    const again = await book.solver.settle([settledTrade(sellA), settledTrade(sellB)], prices);
    await book.indexed();
    const newTrades = await eventually<Trade[]>(book, `/trades?orderUid=${sellA.uid}`, (t) => t.length === 1, 'the trade on the new chain');
    assert.deepEqual([newTrades[0].transactionHash, newTrades[0].blockNumber], [again.hash.toLowerCase(), again.blockNumber]);
    assert.equal((await order(sellA.uid)).status, 'fulfilled');

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
