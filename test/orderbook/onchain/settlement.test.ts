/**
 * End to end on the embedded anvil with the real GPv2Settlement: traders (ethers wallets through the
 * gateway) sign orders and POST them, the allow-listed test solver settles them with
 * GPv2Settlement.settle, and the service shows the indexed trades and executed amounts.
 */
import assert from 'node:assert/strict';
import type { Order } from '../../../src/generated/orderbook/order.js';
import type { Trade } from '../../../src/generated/orderbook/trade.js';
import {
  DEV_TOKEN_ADDRESSES as T,
  e18,
  eventually,
  settledTrade,
  signed,
  solvableUids,
  startOnchainBook,
  type OnchainBook,
} from '../../support/onchain.js';

describe('order book on chain: settlement end to end', function () {
  this.timeout(120_000);
  let book: OnchainBook;

  before(async () => {
    book = await startOnchainBook();
  });
  after(() => book?.stop());

  it('settles two opposite orders: both trades listed with amounts and transaction hash, both orders fulfilled', async () => {
    const alice = await book.fundedTrader(T.TKA, e18(101));
    const bob = await book.fundedTrader(T.TKB, e18(101));
    const sellA = await signed(alice, book.domain, { sellToken: T.TKA, buyToken: T.TKB, sellAmount: e18(100), buyAmount: e18(99), feeAmount: e18(1) });
    const sellB = await signed(bob, book.domain, { sellToken: T.TKB, buyToken: T.TKA, sellAmount: e18(100), buyAmount: e18(99), feeAmount: e18(1) }, { scheme: 'ethsign' });
    await book.place(sellA);
    await book.place(sellB);
    const before = await solvableUids(book);
    assert.ok(before.includes(sellA.uid) && before.includes(sellB.uid), 'both orders are solvable once placed');

    const receipt = await book.solver.settle([settledTrade(sellA), settledTrade(sellB)], { [T.TKA]: 1n, [T.TKB]: 1n });
    await book.indexed();

    const expected = (placed: typeof sellA, sellToken: string, buyToken: string) => ({
      blockNumber: receipt.blockNumber,
      orderUid: placed.uid,
      owner: placed.owner,
      sellToken,
      buyToken,
      sellAmount: e18(101).toString(),
      sellAmountBeforeFees: e18(100).toString(),
      buyAmount: e18(100).toString(),
      transactionHash: receipt.hash.toLowerCase(),
      txHash: receipt.hash.toLowerCase(),
    });
    const withoutLogIndex = ({ logIndex: _, ...rest }: Trade) => rest;

    const byOwner = await eventually<Trade[]>(book, `/trades?owner=${alice.address}`, (t) => t.length > 0, "alice's trade");
    assert.deepEqual(byOwner.map(withoutLogIndex), [expected(sellA, T.TKA, T.TKB)]);
    const byUid = await eventually<Trade[]>(book, `/trades?orderUid=${sellB.uid}`, (t) => t.length > 0, "bob's trade");
    assert.deepEqual(byUid.map(withoutLogIndex), [expected(sellB, T.TKB, T.TKA)]);
    // The log indexes are the chain's: alice's trade comes first in the settlement.
    const chainLogs = receipt.logs.filter((l) => l.address.toLowerCase() === book.settlement).map((l) => l.index);
    assert.deepEqual([byOwner[0].logIndex, byUid[0].logIndex], chainLogs.slice(0, 2));
    const all = (await book.get(`/trades?owner=${bob.address}`)).json as Trade[];
    assert.deepEqual(all, byUid, 'by owner and by order UID give the same trade');

    for (const placed of [sellA, sellB]) {
      const order = await book.order(placed.uid);
      assert.equal(order.status, 'fulfilled');
      assert.deepEqual(
        [order.executedSellAmount, order.executedSellAmountBeforeFees, order.executedBuyAmount, order.executedFeeAmount],
        [e18(101), e18(100), e18(100), e18(1)].map(String),
      );
    }
    const after = await solvableUids(book);
    assert.ok(!after.includes(sellA.uid) && !after.includes(sellB.uid), 'fulfilled orders leave solvable_orders');
    // GET /orders hides fully executed orders unless asked.
    assert.deepEqual((await book.get(`/orders?owner=${alice.address}`)).json, []);
    const listed = (await book.get(`/orders?owner=${alice.address}&includeFullyExecuted=true`)).json as Order[];
    assert.deepEqual(listed.map((o) => [o.uid, o.status]), [[sellA.uid, 'fulfilled']]);
  });

  it('a partially fillable order half filled stays solvable with its executed amounts', async () => {
    const carol = await book.fundedTrader(T.TKA, e18(102));
    const dave = await book.fundedTrader(T.TKB, e18(50));
    const partial = await signed(carol, book.domain, {
      sellToken: T.TKA,
      buyToken: T.TKB,
      sellAmount: e18(100),
      buyAmount: e18(100),
      feeAmount: e18(2),
      partiallyFillable: true,
    });
    const counter = await signed(dave, book.domain, { sellToken: T.TKB, buyToken: T.TKA, sellAmount: e18(50), buyAmount: e18(50) });
    await book.place(partial);
    await book.place(counter);

    const receipt = await book.solver.settle([settledTrade(partial, e18(50)), settledTrade(counter)], { [T.TKA]: 1n, [T.TKB]: 1n });
    await book.indexed();

    const trades = await eventually<Trade[]>(book, `/trades?orderUid=${partial.uid}`, (t) => t.length === 1, 'the partial trade');
    assert.equal(trades[0].transactionHash, receipt.hash.toLowerCase());
    // The contract charges the fee pro rata: half the order, half the fee.
    assert.deepEqual([trades[0].sellAmount, trades[0].sellAmountBeforeFees, trades[0].buyAmount], [e18(51), e18(50), e18(50)].map(String));

    const order = await book.order(partial.uid);
    assert.equal(order.status, 'open');
    assert.deepEqual(
      [order.executedSellAmount, order.executedSellAmountBeforeFees, order.executedBuyAmount, order.executedFeeAmount],
      [e18(51), e18(50), e18(50), e18(1)].map(String),
    );
    assert.equal((await book.order(counter.uid)).status, 'fulfilled');

    // Still solvable, and once the balances of the settlement block are read, carol has 102 - 51 left.
    const solvable = await eventually<Order[]>(
      book,
      '/solvable_orders',
      (orders) => orders.some((o) => o.uid === partial.uid && o.availableBalance === e18(51).toString()),
      "carol's order solvable with her balance after the trade",
    );
    const shown = solvable.find((o) => o.uid === partial.uid)!;
    assert.equal(shown.executedSellAmountBeforeFees, e18(50).toString());
    assert.equal(shown.executedBuyAmount, e18(50).toString());
    assert.ok(!solvable.some((o) => o.uid === counter.uid));
  });

  it('a buy order is fulfilled when its buyAmount is bought, at a better price than its limit', async () => {
    const buyer = await book.fundedTrader(T.TKA, e18(12));
    const seller = await book.fundedTrader(T.TKB, e18(20));
    // Buy 10 TKB for at most 11 TKA plus a 1 TKA fee; cleared at 1:1 it pays 10 + 1.
    const buy = await signed(buyer, book.domain, { sellToken: T.TKA, buyToken: T.TKB, sellAmount: e18(11), buyAmount: e18(10), feeAmount: e18(1), kind: 'buy' });
    const sell = await signed(seller, book.domain, { sellToken: T.TKB, buyToken: T.TKA, sellAmount: e18(10), buyAmount: e18(10) });
    await book.place(buy);
    await book.place(sell);
    await book.solver.settle([settledTrade(buy), settledTrade(sell)], { [T.TKA]: 1n, [T.TKB]: 1n });
    await book.indexed();

    const [trade] = await eventually<Trade[]>(book, `/trades?orderUid=${buy.uid}`, (t) => t.length === 1, 'the buy trade');
    assert.deepEqual([trade.sellAmount, trade.sellAmountBeforeFees, trade.buyAmount], [e18(11), e18(10), e18(10)].map(String));
    const order = await book.order(buy.uid);
    assert.equal(order.status, 'fulfilled');
    assert.equal(order.executedBuyAmount, e18(10).toString());
    assert.ok(!(await solvableUids(book)).includes(buy.uid));
  });
});
