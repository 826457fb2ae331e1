/**
 * The real CoW SDK client, unchanged (@cowprotocol/sdk-order-book 4.0.2's OrderBookApi), through a
 * trader's whole flow against the service on its embedded chain with the real GPv2Settlement: version,
 * quote, app data, a feeAmount 0 order naming the quote, reads, settlement against a second order, v2
 * trades, orders of the transaction, bulk cancellation, native price, errors. Then the auditor's replay
 * of the log (new events included) gives the live read models' digests. Today's fee rule: feeAmount 0
 * without a quoteId is taken, a non-zero fee below the minimum is not.
 */
import assert from 'node:assert/strict';
import { getAddress, keccak256, toUtf8Bytes } from 'ethers';
import type { OrderBookApi } from '@cowprotocol/sdk-order-book';
import { DEV_TOKEN_ADDRESSES as T, e18, settledTrade, signed, startOnchainBook, type OnchainBook, type PlacedOrder } from '../../support/onchain.js';
import { apiError, cowOrderBookApi, signCancellations } from '../../support/cow-sdk.js';
import { replayCli } from '../../support/replay.js';
import { serviceVersion } from '../../../src/orderbook/api/version.js';
import type { Wallet } from 'ethers';

describe('order book: the CoW SDK OrderBookApi end to end', function () {
  this.timeout(180_000);
  let book: OnchainBook;
  let api: OrderBookApi;
  const TKA = getAddress(T.TKA);
  const TKB = getAddress(T.TKB);
  const fullAppData = '{"appCode":"ethgate-sdk-test","metadata":{},"version":"1.3.0"}';
  const appDataHash = keccak256(toUtf8Bytes(fullAppData));

  before(async () => {
    // One native atom per atom of either token: both priced, 1:1.
    book = await startOnchainBook({ TOKEN_PRICES: `${T.TKA}=1,${T.TKB}=1`, MIN_VALID_TO_SECONDS: '1' });
    api = cowOrderBookApi(book.service.url);
  });
  after(() => book?.stop());

  /** Quotes with the SDK and places the quote's order with feeAmount 0, as the TradingSdk does. */
  async function quoteAndPlace(trader: Wallet, sellToken: string, buyToken: string, sellAmount: bigint): Promise<PlacedOrder & { quoteId: number }> {
    const quote = await api.getQuote({
      sellToken,
      buyToken,
      from: trader.address,
      receiver: trader.address,
      kind: 'sell',
      sellAmountAfterFee: sellAmount.toString(),
      validFor: 600,
      appData: fullAppData,
      appDataHash,
      priceQuality: 'verified',
      signingScheme: 'eip712',
      partiallyFillable: false,
    } as never);
    assert.equal(typeof quote.id, 'number');
    assert.equal(quote.quote.sellAmount, sellAmount.toString());
    assert.equal(quote.from, trader.address.toLowerCase());
    assert.ok(BigInt(quote.quote.feeAmount) > 0n, 'the fee the price covers');
    const placed = await signed(trader, book.domain, {
      sellToken,
      buyToken,
      sellAmount: BigInt(quote.quote.sellAmount),
      buyAmount: BigInt(quote.quote.buyAmount),
      validTo: quote.quote.validTo,
      appData: appDataHash,
      feeAmount: 0n,
      receiver: trader.address,
    });
    const uid = await api.sendOrder({
      ...placed.body,
      appData: fullAppData,
      appDataHash,
      quoteId: quote.id,
      from: trader.address,
      fullBalanceCheck: true,
      someFutureField: 'ignored',
    } as never);
    assert.equal(uid, placed.uid, 'the UID the client computed');
    return { ...placed, quoteId: quote.id! };
  }

  // The flow's steps run in order and share what the earlier ones made.
  let alice: Wallet;
  let bob: Wallet;
  let sellA: PlacedOrder & { quoteId: number };
  let sellB: PlacedOrder & { quoteId: number };
  let later: PlacedOrder & { quoteId: number };
  let txHash: string;

  it('answers its version', async () => {
    assert.equal(await api.getVersion(), serviceVersion());
  });

  it('registers app data: 201 new, 200 known, readable', async () => {
    // App data: 201 new, 200 known, readable.
    assert.equal(await api.uploadAppData(appDataHash, fullAppData), appDataHash);
    assert.equal(await api.uploadAppData(appDataHash, fullAppData), appDataHash);
    assert.deepEqual(await api.getAppData(appDataHash), { fullAppData });
  });

  it('quotes, places feeAmount 0 orders naming their quote, and reads them back', async () => {
    alice = await book.fundedTrader(T.TKA, e18(200));
    bob = await book.fundedTrader(T.TKB, e18(100));
    sellA = await quoteAndPlace(alice, TKA, TKB, e18(100));
    sellB = await quoteAndPlace(bob, TKB, TKA, e18(100));
    later = await quoteAndPlace(alice, TKA, TKB, e18(50));

    const order = await api.getOrder(sellA.uid);
    assert.equal(order.owner, alice.address.toLowerCase());
    assert.equal(order.status, 'open');
    assert.equal(order.feeAmount, '0');
    assert.equal(order.class, 'market');
    assert.equal(order.settlementContract, book.settlement.toLowerCase());
    assert.equal(order.fullAppData, fullAppData);
    assert.equal(order.appData, appDataHash);
    assert.equal(order.executedFeeToken, T.TKA.toLowerCase());
    assert.equal(order.quote?.sellAmount, e18(100).toString());
    assert.deepEqual(
      (await api.getOrders({ owner: alice.address })).map((o) => o.uid),
      [later.uid, sellA.uid],
      "alice's orders, newest first",
    );
    assert.deepEqual(await api.getOrderCompetitionStatus(sellA.uid), { type: 'active' });
  });

  it("settles two orders through GPv2Settlement; trades, the transaction's orders and the statuses show it", async () => {
    // Settled against bob's order by the allow-listed solver through GPv2Settlement.settle.
    const receipt = await book.solver.settle([settledTrade(sellA), settledTrade(sellB)], { [T.TKA]: 1n, [T.TKB]: 1n });
    await book.indexed();
    await book.orderbook.runner.waitFor(await book.orderbook.events.head());
    txHash = receipt.hash.toLowerCase();

    const trades = await api.getTrades({ owner: alice.address });
    assert.equal(trades.length, 1);
    assert.equal(trades[0].txHash, txHash);
    assert.equal(trades[0].orderUid, sellA.uid);
    assert.equal(trades[0].sellAmount, e18(100).toString());
    assert.ok(!('transactionHash' in trades[0]), 'v2 trades have txHash only');
    assert.deepEqual((await api.getTrades({ orderUid: sellB.uid })).map((t) => t.txHash), [txHash]);
    const v1 = (await book.get(`/trades?orderUid=${sellA.uid}`)).json as { txHash: string; transactionHash: string }[];
    assert.deepEqual([v1[0].txHash, v1[0].transactionHash], [txHash, txHash], 'v1 keeps transactionHash beside txHash');
    assert.deepEqual((await api.getTxOrders(receipt.hash)).map((o) => o.uid).sort(), [sellA.uid, sellB.uid].sort());
    assert.equal((await api.getOrder(sellA.uid)).status, 'fulfilled');
    assert.deepEqual(await api.getOrderCompetitionStatus(sellA.uid), { type: 'traded' });
  });

  it("bulk-cancels: another signer's cancellation is 401 WrongOwner, the owner's cancels", async () => {
    // Bulk cancellation of alice's later order: bob's signature is refused, alice's cancels it.
    const wrong = await apiError(
      api.sendSignedOrderCancellations({ orderUids: [later.uid], signature: await signCancellations(bob, book.domain, [later.uid]), signingScheme: 'eip712' } as never),
    );
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.errorType, 'WrongOwner');
    assert.equal((await api.getOrder(later.uid)).status, 'open');
    assert.equal(
      await api.sendSignedOrderCancellations({ orderUids: [later.uid], signature: await signCancellations(alice, book.domain, [later.uid]), signingScheme: 'eip712' } as never),
      'Cancelled',
    );
    assert.equal((await api.getOrder(later.uid)).status, 'cancelled');
    assert.deepEqual(await api.getOrderCompetitionStatus(later.uid), { type: 'cancelled' });
  });

  it("answers native prices, total surplus, and errors in CoW's shape", async () => {
    assert.deepEqual(await api.getNativePrice(TKA), { price: 1 });
    const surplus = await api.getTotalSurplus(alice.address);
    assert.match(surplus.totalSurplus!, /^[0-9]+$/);

    const missing = await apiError(api.getOrder('0x' + '11'.repeat(56)));
    assert.equal(missing.status, 404);
    assert.equal(missing.body.errorType, 'OrderNotFound');
    assert.equal(typeof missing.body.description, 'string');
  });

  it('holds every state change in the log, and a replay of it gives the live digests', async () => {
    // Every new state change is in the log, and a replay of it gives the live read models.
    const log = (await book.get('/events?limit=1000')).json as { type: string; data: any }[];
    const types = new Set(log.map((e) => e.type));
    for (const type of ['AppDataRegistered', 'OrderCreated', 'TradeRecorded', 'OrderCancelled']) assert.ok(types.has(type), type);
    assert.ok(!types.has('QuoteIssued'), 'quotes are rows of the quote store, not events');
    assert.equal(log.filter((e) => e.type === 'AppDataRegistered').length, 1, 'a document is registered once');
    const created = log.find((e) => e.type === 'OrderCreated' && e.data.uid === sellA.uid)?.data;
    assert.equal(created?.quoteId, sellA.quoteId);
    assert.match(String(created?.quote?.buyAmount), /^[0-9]+$/, 'the order carries the figures of the quote it used');
    assert.equal(log.find((e) => e.type === 'OrderCancelled' && e.data.uid === later.uid)?.data.bulk, true);
    const live = (await book.get('/projections')).json as { head: number; projections: Record<string, any> };
    const replayed = await replayCli({ DATA_DIR: book.service.dataDir });
    assert.equal(replayed.position, live.head);
    for (const name of Object.keys(live.projections)) {
      const { version: _version, ...digest } = live.projections[name];
      assert.deepEqual(replayed.digests[name], digest, `replayed ${name}`);
    }
  });

  it('takes feeAmount "0" orders naming no quote (201, class limit); a non-zero fee below the minimum is InsufficientFee', async () => {
    const carol = await book.fundedTrader(T.TKA, e18(10));
    const order = { sellToken: TKA, buyToken: TKB, sellAmount: e18(1), buyAmount: e18(2), receiver: carol.address };
    const zero = await signed(carol, book.domain, { ...order, feeAmount: 0n });
    assert.equal(await api.sendOrder({ ...zero.body, from: carol.address } as never), zero.uid);
    const placed = await api.getOrder(zero.uid);
    assert.deepEqual([placed.feeAmount, placed.class, placed.status], ['0', 'limit', 'open']);

    const minimal = BigInt((await book.get(`/tokens/${TKA}/fee`)).json.minimalFee);
    assert.ok(minimal > 1n);
    const underpaid = await signed(carol, book.domain, { ...order, feeAmount: minimal - 1n });
    const refused = await apiError(api.sendOrder({ ...underpaid.body, from: carol.address } as never));
    assert.equal(refused.status, 400);
    assert.equal(refused.body.errorType, 'InsufficientFee');
    const enough = await signed(carol, book.domain, { ...order, feeAmount: minimal });
    assert.equal(await api.sendOrder({ ...enough.body, from: carol.address } as never), enough.uid);
  });
});
