/**
 * The dev solver on the embedded chain (DEV_SOLVER=on): traders sign and post orders, nobody else settles,
 * and the service's own solver trades the crossing ones through GPv2Settlement.settle. What the test checks
 * is what a trader sees: the trades on /api/v2/trades, the orders' statuses (GET /api/v1/orders/{uid} and
 * the CoW SDK's getOrder), each trade against the limit the trader signed, to the wei; and the read models
 * the indexer built from those settlements replay to the same digests.
 */
import assert from 'node:assert/strict';
import { MaxUint256 } from 'ethers';
import type { Order } from '../../../src/generated/orderbook/order.js';
import type { Trade } from '../../../src/generated/orderbook/trade.js';
import { cowOrderBookApi } from '../../support/cow-sdk.js';
import { http } from '../../support/http.js';
import { DEV_TOKEN_ADDRESSES as T, e18, eventually, signed, startOnchainBook, type OnchainBook, type PlacedOrder } from '../../support/onchain.js';
import { replayCli } from '../../support/replay.js';
import { orderCreation, orderData } from '../../support/orders.js';
import { deployEip1271Wallet, eip1271Wallet, mined, testToken } from '../../support/solver.js';
import { domainSeparator, orderDigest } from '../../../src/orderbook/domain/eip712.js';

const tkc = (n: number) => BigInt(Math.round(n * 1e6));

/** The trade against the signed order: its limit price held to the wei, and no more than the order allows. */
function assertWithinLimit(trade: Trade, placed: PlacedOrder): void {
  const { sellAmount, buyAmount, kind } = placed.order;
  const sold = BigInt(trade.sellAmountBeforeFees);
  const bought = BigInt(trade.buyAmount);
  // bought / sold ≥ buyAmount / sellAmount, in integers.
  assert.ok(bought * sellAmount >= buyAmount * sold, `trade ${sold} → ${bought} is below the limit ${sellAmount} → ${buyAmount}`);
  if (kind === 'sell') assert.ok(sold <= sellAmount);
  else assert.ok(bought <= buyAmount);
}

async function tradesOf(book: OnchainBook, uid: string): Promise<Trade[]> {
  const res = await http(`${book.service.url}/api/v2/trades?orderUid=${uid}`);
  assert.equal(res.status, 200, res.text);
  return res.json as Trade[];
}

describe('order book on chain: the dev solver', function () {
  this.timeout(120_000);
  let book: OnchainBook;

  before(async () => {
    book = await startOnchainBook({ DEV_SOLVER: 'on' });
  });
  after(() => book?.stop());

  it('trades two crossing orders of opposite direction within 5 s, each within its signed limit', async () => {
    const alice = await book.fundedTrader(T.TKA, e18(10));
    const bob = await book.fundedTrader(T.TKC, tkc(11));
    // Alice sells 10 TKA for at least 9 TKC; Bob buys 10 TKA for at most 11 TKC (TKC has 6 decimals).
    const sell = await signed(alice, book.domain, { sellToken: T.TKA, buyToken: T.TKC, sellAmount: e18(10), buyAmount: tkc(9) });
    const buy = await signed(bob, book.domain, { sellToken: T.TKC, buyToken: T.TKA, sellAmount: tkc(11), buyAmount: e18(10), kind: 'buy' }, { scheme: 'ethsign' });
    await book.place(sell);
    const started = Date.now();
    await book.place(buy);

    const deadline = started + 5000;
    let statuses: string[] = [];
    while (Date.now() < deadline) {
      statuses = (await Promise.all([book.order(sell.uid), book.order(buy.uid)])).map((o) => o.status);
      if (statuses.every((s) => s === 'fulfilled')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(statuses, ['fulfilled', 'fulfilled'], `both orders fulfilled within 5 s (took ${Date.now() - started} ms)`);

    const [sellTrades, buyTrades] = [await tradesOf(book, sell.uid), await tradesOf(book, buy.uid)];
    assert.equal(sellTrades.length, 1);
    assert.equal(buyTrades.length, 1);
    const [t1, t2] = [sellTrades[0], buyTrades[0]];
    assert.equal(t1.txHash, t2.txHash, 'one settlement');
    assert.equal(t1.owner, alice.address.toLowerCase());
    assertWithinLimit(t1, sell);
    assertWithinLimit(t2, buy);
    // A coincidence of wants: what one gave the other got, nothing from elsewhere.
    assert.equal(t1.sellAmountBeforeFees, e18(10).toString());
    assert.equal(t2.buyAmount, e18(10).toString());
    assert.equal(t1.buyAmount, t2.sellAmountBeforeFees);
    const receipt = await book.client.getTransactionReceipt(t1.txHash);
    assert.equal(receipt?.from.toLowerCase(), '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', 'sent by the allow-listed dev solver');

    const sdk = cowOrderBookApi(book.service.url);
    const seen = await sdk.getOrder(buy.uid);
    assert.equal(seen.status, 'fulfilled');
    assert.equal(seen.executedBuyAmount, e18(10).toString());
  });

  it('fills a partially fillable order in part, within its limit, and leaves the rest open', async () => {
    const carol = await book.fundedTrader(T.TKA, e18(30));
    const dave = await book.fundedTrader(T.TKB, e18(10));
    const big = await signed(carol, book.domain, { sellToken: T.TKA, buyToken: T.TKB, sellAmount: e18(30), buyAmount: e18(30), partiallyFillable: true });
    await book.place(big);
    const small = await signed(dave, book.domain, { sellToken: T.TKB, buyToken: T.TKA, sellAmount: e18(10), buyAmount: e18(9) });
    await book.place(small);
    const filled = await eventually<Order>(book, `/orders/${small.uid}`, (o) => o.status === 'fulfilled', "dave's order traded", 10_000);
    assert.equal(filled.executedSellAmountBeforeFees, e18(10).toString());
    const partial = await eventually<Order>(book, `/orders/${big.uid}`, (o) => o.executedSellAmountBeforeFees !== '0', "carol's partial fill", 10_000);
    assert.equal(partial.status, 'open');
    const sold = BigInt(partial.executedSellAmountBeforeFees);
    assert.ok(sold > 0n && sold < e18(30), `part of carol's order: ${sold}`);
    assert.equal(partial.executedBuyAmount, e18(10).toString(), 'carol got all of what dave sold');
    const [trade] = await tradesOf(book, big.uid);
    assertWithinLimit(trade, big);
    assertWithinLimit((await tradesOf(book, small.uid))[0], small);
  });

  it("leaves orders whose limits do not cross open", async () => {
    const erin = await book.fundedTrader(T.TKB, e18(5));
    const frank = await book.fundedTrader(T.TKC, tkc(5));
    const ask = await signed(erin, book.domain, { sellToken: T.TKB, buyToken: T.TKC, sellAmount: e18(5), buyAmount: tkc(5) });
    const bid = await signed(frank, book.domain, { sellToken: T.TKC, buyToken: T.TKB, sellAmount: tkc(4), buyAmount: e18(5) });
    await book.place(ask);
    await book.place(bid);
    // Several rounds of the solver (one a second), and a block for good measure.
    await book.control('evm_mine');
    await new Promise((r) => setTimeout(r, 2500));
    assert.deepEqual([(await book.order(ask.uid)).status, (await book.order(bid.uid)).status], ['open', 'open']);
    assert.deepEqual(await tradesOf(book, ask.uid), []);
  });

  it('a pair whose settlement would revert is tried again only after a pause, and holds no other pair back', async () => {
    // An eip1271 order whose contract owner stops approving its digest after it was accepted: it stays in
    // the auction, and a settlement with it reverts in the contract's signature check.
    const owner = await book.trader();
    const wallet = await deployEip1271Wallet(owner);
    await mined(testToken(T.TKB, owner).mint(wallet, e18(10)));
    await mined(eip1271Wallet(wallet, owner).approveToken(T.TKB, book.vaultRelayer, MaxUint256));
    const data = orderData({ sellToken: T.TKB, buyToken: T.TKC, sellAmount: e18(10), buyAmount: tkc(9) });
    await mined(eip1271Wallet(wallet, owner).approveHash(orderDigest(domainSeparator(book.domain), data), true));
    const created = await book.post('/orders', { ...orderCreation(data, 'eip1271', '0x'), from: wallet });
    assert.equal(created.status, 201, created.text);
    const revoked = created.json as string;
    await mined(eip1271Wallet(wallet, owner).approveHash(orderDigest(domainSeparator(book.domain), data), false));

    // Settlements it tries are simulated (eth_estimateGas) before they are sent.
    const estimates = async () => {
      const text = (await http(`${book.service.url}/metrics`)).text;
      return [...text.matchAll(/^ethgate_upstream_calls_total\{[^}]*method="eth_estimateGas"[^}]*\} (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    };
    const taker = await book.fundedTrader(T.TKC, tkc(10));
    const crossing = await signed(taker, book.domain, { sellToken: T.TKC, buyToken: T.TKB, sellAmount: tkc(10), buyAmount: e18(9) });
    // From here on only the dev solver sends transactions (the block below is mined by anvil directly).
    const before = await estimates();
    await book.place(crossing);
    // Four rounds at least (one a second, and a block mined meanwhile); the pair is left alone for 5 s after it failed.
    await new Promise((r) => setTimeout(r, 2000));
    await book.control('evm_mine');
    await new Promise((r) => setTimeout(r, 2000));
    const tried = (await estimates()) - before;
    assert.equal(tried, 1, `one attempt, then a pause (${tried} estimates)`);
    assert.deepEqual([(await book.order(revoked)).status, (await book.order(crossing.uid)).status], ['open', 'open']);

    // Meanwhile another crossing pair trades.
    const gus = await book.fundedTrader(T.TKA, e18(2));
    const hal = await book.fundedTrader(T.TKB, e18(2));
    const one = await signed(gus, book.domain, { sellToken: T.TKA, buyToken: T.TKB, sellAmount: e18(2), buyAmount: e18(1) });
    const two = await signed(hal, book.domain, { sellToken: T.TKB, buyToken: T.TKA, sellAmount: e18(2), buyAmount: e18(1) });
    await book.place(one);
    await book.place(two);
    await eventually<Order>(book, `/orders/${two.uid}`, (o) => o.status === 'fulfilled', 'the other pair traded', 5000);
  });

  it('the read models built from its settlements replay to the same digests', async () => {
    await book.indexed();
    const live = (await book.get('/projections')).json as { head: number; projections: Record<string, { version: number; position: number; documents: number; sha256: string }> };
    assert.ok(live.projections.trades.documents >= 4, 'the solver trades are in the trades read model');
    const verify = await http(`${book.api}/projections/replay`, { method: 'POST' });
    assert.equal(verify.status, 200, verify.text);
    assert.equal(verify.json.matches, true);
    const replayed = await replayCli({ DATA_DIR: book.service.dataDir });
    assert.equal(replayed.position, live.head, 'nothing was appended in between');
    for (const [name, { version: _version, ...digest }] of Object.entries(live.projections)) {
      assert.deepEqual(replayed.digests[name], digest, name);
    }
  });
});
