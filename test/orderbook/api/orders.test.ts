/**
 * The order lifecycle through the HTTP API with ethers v6 as the client: create (eip712, ethsign), read,
 * list with each filter and include flag, cancel, and the solvable orders before and after a cancellation
 * and after expiry, with their ETag. One service (and its embedded chain) for the whole file; each test
 * uses its own traders, so filters by owner keep the tests apart.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parseUnits, type Wallet } from 'ethers';
import { signCancellation, signOrder, signOrderNative, type OrderParams, type SignedOrderCreation } from '../../support/orders.js';
import {
  caughtUp,
  deleteOrder,
  get,
  postOrder,
  settle,
  startOrderbookService,
  TOKENS,
  type OrderbookHarness,
} from '../../support/orderbook.js';
import { invalidateOrder, testToken, mined } from '../../support/solver.js';
import { until } from '../../support/wait.js';
import { e18 } from '../../support/onchain.js';

const { TKA, TKB, TKC } = TOKENS;
const now = () => Math.floor(Date.now() / 1000);

interface ApiOrder {
  uid: string;
  owner: string;
  status: string;
  invalidated: boolean;
  availableBalance: string | null;
  [key: string]: unknown;
}

describe('order book API: orders', function () {
  this.timeout(120_000);
  let h: OrderbookHarness;

  before(async () => {
    h = await startOrderbookService();
  });
  after(() => h?.stop());

  async function place(
    trader: Wallet,
    params: OrderParams,
    options: { scheme?: 'eip712' | 'ethsign'; withFrom?: boolean } = {},
  ): Promise<SignedOrderCreation> {
    const signed = await signOrder(trader, h.domain, params, options);
    const res = await postOrder(h.api, signed.body);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json, signed.uid);
    return signed;
  }

  async function order(uid: string): Promise<ApiOrder> {
    const res = await get(h.api, `/orders/${uid}`);
    assert.equal(res.status, 200, res.text);
    return res.json;
  }

  async function list(query: Record<string, string | number | boolean>): Promise<ApiOrder[]> {
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
    const res = await get(h.api, `/orders?${qs}`);
    assert.equal(res.status, 200, res.text);
    return res.json;
  }

  async function solvable(): Promise<ApiOrder[]> {
    const res = await get(h.api, '/solvable_orders');
    assert.equal(res.status, 200, res.text);
    return res.json;
  }

  const uids = (orders: { uid: string }[]) => orders.map((o) => o.uid).sort();
  const sorted = (...signed: SignedOrderCreation[]) => signed.map((s) => s.uid).sort();

  it('creates eip712 and ethsign orders, answers 201 with the UID, and serves each with every field', async () => {
    const alice = await h.trader({ [TKA]: e18(100) });
    const eip712 = await place(alice, { sellToken: TKA, buyToken: TKB, sellAmount: e18(10), buyAmount: e18(9) });
    const ethsign = await place(
      alice,
      { sellToken: TKA, buyToken: TKB, sellAmount: e18(11), buyAmount: e18(9), receiver: '0x' + 'Ab'.repeat(20) },
      { scheme: 'ethsign', withFrom: true },
    );

    for (const signed of [eip712, ethsign]) {
      const o = await order(signed.uid);
      const { from: _from, ...fields } = signed.body;
      for (const [key, value] of Object.entries(fields)) {
        assert.deepEqual(o[key], typeof value === 'string' ? value.toLowerCase() : value, key);
      }
      assert.equal(o.uid, signed.uid);
      assert.equal(o.owner, alice.address.toLowerCase());
      assert.equal(o.status, 'open');
      assert.equal(o.invalidated, false);
      assert.equal(o.availableBalance, e18(100).toString());
      for (const key of ['executedSellAmount', 'executedSellAmountBeforeFees', 'executedBuyAmount', 'executedFeeAmount']) {
        assert.equal(o[key], '0', key);
      }
      assert.ok(Math.abs(Date.parse(o.creationDate as string) - Date.now()) < 60_000, o.creationDate as string);
      assert.match(o.creationDate as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    }
    assert.equal((await order(ethsign.uid)).receiver, '0x' + 'ab'.repeat(20));
    assert.equal((await order(eip712.uid)).receiver, null);
    // Any case in the path finds the order.
    assert.equal((await get(h.api, `/orders/${eip712.uid.toUpperCase().replace('0X', '0x')}`)).json.uid, eip712.uid);
  });

  it('lists by owner, sellToken, buyToken and minValidTo, oldest first', async () => {
    const alice = await h.trader({ [TKA]: e18(100), [TKB]: e18(100) });
    const bob = await h.trader({ [TKB]: e18(100) });
    const hour = now() + 3600;
    const a1 = await place(alice, { sellToken: TKA, buyToken: TKB, sellAmount: e18(1), buyAmount: e18(1), validTo: hour });
    const a2 = await place(alice, { sellToken: TKA, buyToken: TKC, sellAmount: e18(2), buyAmount: 1000n, validTo: hour + 3600 });
    const a3 = await place(alice, { sellToken: TKB, buyToken: TKA, sellAmount: e18(3), buyAmount: e18(1), validTo: hour });
    const b1 = await place(bob, { sellToken: TKB, buyToken: TKC, sellAmount: e18(4), buyAmount: 1000n, validTo: hour + 7200 });

    const byAlice = await list({ owner: alice.address });
    assert.deepEqual(byAlice.map((o) => o.uid), [a1.uid, a2.uid, a3.uid], 'oldest first');
    assert.deepEqual(uids(await list({ owner: bob.address.toLowerCase() })), [b1.uid]);

    const sellingTkb = await list({ sellToken: TKB.toUpperCase().replace('0X', '0x') });
    assert.ok(sellingTkb.every((o) => o.sellToken === TKB));
    assert.deepEqual(uids(sellingTkb.filter((o) => [alice, bob].some((w) => w.address.toLowerCase() === o.owner))), sorted(a3, b1));

    const buyingTkc = await list({ buyToken: TKC });
    assert.ok(buyingTkc.every((o) => o.buyToken === TKC));
    assert.ok(buyingTkc.some((o) => o.uid === a2.uid) && buyingTkc.some((o) => o.uid === b1.uid));
    assert.ok(!buyingTkc.some((o) => o.uid === a1.uid || o.uid === a3.uid));

    assert.deepEqual(uids(await list({ owner: alice.address, sellToken: TKA, buyToken: TKC })), [a2.uid]);
    assert.deepEqual(uids(await list({ owner: alice.address, minValidTo: hour + 1 })), [a2.uid]);
    assert.deepEqual(uids(await list({ owner: bob.address, minValidTo: hour + 7201 })), []);
    assert.deepEqual(uids(await list({ owner: alice.address, minValidTo: 0 })), sorted(a1, a2, a3));
  });

  it('lists expired orders only with a minValidTo in the past', async () => {
    const carol = await h.trader({ [TKA]: e18(10) });
    const short = await place(carol, { sellToken: TKA, buyToken: TKB, sellAmount: e18(1), buyAmount: e18(1), validTo: now() + 6 });
    assert.deepEqual(uids(await list({ owner: carol.address })), [short.uid]);
    await until(async () => (await list({ owner: carol.address })).length === 0, 'the order to expire', 20_000);
    const listed = await list({ owner: carol.address, minValidTo: 0 });
    assert.deepEqual(uids(listed), [short.uid]);
    assert.equal(listed[0].status, 'expired');
    assert.equal((await order(short.uid)).status, 'expired');
    const cancel = await deleteOrder(h.api, short.uid, await signCancellation(carol, h.domain, short.uid));
    assert.equal(cancel.status, 400);
    assert.equal(cancel.json.errorType, 'OrderExpired');
  });

  it('lists fully executed orders only with includeFullyExecuted, with their executed amounts', async () => {
    const dave = await h.trader({ [TKA]: e18(100) });
    const filled = await place(dave, { sellToken: TKA, buyToken: TKB, sellAmount: e18(10), buyAmount: e18(5), feeAmount: e18(1) });
    const open = await place(dave, { sellToken: TKA, buyToken: TKC, sellAmount: e18(20), buyAmount: 1000n });
    await settle(h, [{ body: filled.body }]);

    const executed = await order(filled.uid);
    assert.equal(executed.status, 'fulfilled');
    assert.equal(executed.executedSellAmount, e18(11).toString(), 'the fee included');
    assert.equal(executed.executedSellAmountBeforeFees, e18(10).toString());
    assert.equal(executed.executedBuyAmount, e18(5).toString());
    assert.equal(executed.executedFeeAmount, e18(1).toString());
    assert.equal(executed.invalidated, false);

    assert.deepEqual(uids(await list({ owner: dave.address })), [open.uid]);
    assert.deepEqual(uids(await list({ owner: dave.address, includeFullyExecuted: false })), [open.uid]);
    assert.deepEqual(uids(await list({ owner: dave.address, includeFullyExecuted: true })), sorted(filled, open));
    assert.ok(!uids(await solvable()).includes(filled.uid));
    assert.ok(uids(await solvable()).includes(open.uid));
    const cancel = await deleteOrder(h.api, filled.uid, await signCancellation(dave, h.domain, filled.uid));
    assert.equal(cancel.status, 400);
    assert.equal(cancel.json.errorType, 'OrderFullyExecuted');
  });

  it('shows a partially executed order as open with what was executed, until it is filled', async () => {
    const erin = await h.trader({ [TKA]: e18(100) });
    const partial = await place(erin, {
      sellToken: TKA,
      buyToken: TKB,
      sellAmount: e18(10),
      buyAmount: e18(10),
      feeAmount: e18(2),
      partiallyFillable: true,
    });
    await settle(h, [{ body: partial.body, executed: e18(4) }]);
    const o = await order(partial.uid);
    assert.equal(o.status, 'open');
    assert.equal(o.executedSellAmountBeforeFees, e18(4).toString());
    assert.equal(o.executedFeeAmount, parseUnits('0.8', 18).toString(), 'the fee pro rata');
    assert.equal(o.executedSellAmount, parseUnits('4.8', 18).toString());
    assert.deepEqual(uids(await list({ owner: erin.address })), [partial.uid]);
    assert.ok(uids(await solvable()).includes(partial.uid));

    await settle(h, [{ body: partial.body, executed: e18(6) }]);
    assert.equal((await order(partial.uid)).status, 'fulfilled');
    assert.deepEqual(uids(await list({ owner: erin.address })), []);
  });

  it('lists cancelled and on-chain invalidated orders only with includeInvalidated', async () => {
    const frank = await h.trader({ [TKA]: e18(100) });
    const cancelled = await place(frank, { sellToken: TKA, buyToken: TKB, sellAmount: e18(1), buyAmount: e18(1) });
    const invalidated = await place(frank, { sellToken: TKA, buyToken: TKB, sellAmount: e18(2), buyAmount: e18(1) });
    const open = await place(frank, { sellToken: TKA, buyToken: TKB, sellAmount: e18(3), buyAmount: e18(1) });

    const res = await deleteOrder(h.api, cancelled.uid, await signCancellation(frank, h.domain, cancelled.uid));
    assert.equal(res.status, 200, res.text);
    await invalidateOrder(h.settlement, frank, invalidated.uid);
    await caughtUp(h);

    for (const uid of [cancelled.uid, invalidated.uid]) {
      const o = await order(uid);
      assert.equal(o.status, 'cancelled', uid);
      assert.equal(o.invalidated, true, uid);
    }
    assert.deepEqual(uids(await list({ owner: frank.address })), [open.uid]);
    assert.deepEqual(uids(await list({ owner: frank.address, includeInvalidated: true })), sorted(cancelled, invalidated, open));
    const solvableUids = uids(await solvable());
    assert.ok(solvableUids.includes(open.uid));
    assert.ok(!solvableUids.includes(cancelled.uid) && !solvableUids.includes(invalidated.uid));
  });

  it('lists orders their owner cannot fund only with includeInsufficientBalance', async () => {
    const grace = await h.trader({ [TKA]: e18(100) });
    // Fill-or-kill orders are funded oldest first: 60 fits in 100, the next 60 no longer does.
    const first = await place(grace, { sellToken: TKA, buyToken: TKB, sellAmount: e18(60), buyAmount: e18(1) });
    const second = await place(grace, { sellToken: TKA, buyToken: TKB, sellAmount: e18(60), buyAmount: e18(2) });
    const small = await place(grace, { sellToken: TKA, buyToken: TKB, sellAmount: e18(40), buyAmount: e18(1) });

    assert.deepEqual(uids(await list({ owner: grace.address })), sorted(first, small));
    const all = await list({ owner: grace.address, includeInsufficientBalance: true });
    assert.deepEqual(uids(all), sorted(first, second, small));
    assert.ok(all.every((o) => o.availableBalance === e18(100).toString() && o.status === 'open'));
    let solvableUids = uids(await solvable());
    assert.ok(solvableUids.includes(first.uid) && solvableUids.includes(small.uid) && !solvableUids.includes(second.uid));

    // Revoking the allowance takes them all out once the book reads the next block.
    await mined(testToken(TKA, grace).approve(h.vaultRelayer, 0n));
    await until(async () => (await list({ owner: grace.address })).length === 0, 'the orders to be unfunded', 15_000);
    const unfunded = await list({ owner: grace.address, includeInsufficientBalance: true });
    assert.deepEqual(uids(unfunded), sorted(first, second, small));
    assert.ok(unfunded.every((o) => o.availableBalance === '0'));
    solvableUids = uids(await solvable());
    assert.ok(![first, second, small].some((s) => solvableUids.includes(s.uid)));
  });

  it('pages the listing: limit orders read a page, the Link header names the next one, every order once in order', async () => {
    const ivan = await h.trader({ [TKA]: e18(100) });
    const placed: SignedOrderCreation[] = [];
    // Five orders the owner funds and, oldest first in the middle, two it cannot: a page is `limit` orders
    // read, and those the flags leave out are not listed, so a page may be short.
    for (const amount of [10, 10, 90, 90, 10, 10, 10]) {
      placed.push(await place(ivan, { sellToken: TKA, buyToken: TKB, sellAmount: e18(amount), buyAmount: e18(1), appData: '0x' + String(placed.length + 1).padStart(64, '0') }));
    }
    const walk = async (query: string) => {
      const pages: string[][] = [];
      let path: string | undefined = `/orders?${query}`;
      while (path) {
        const res = await get(h.api.replace(/\/api\/v1$/, ''), path.startsWith('/api/') ? path : `/api/v1${path}`);
        assert.equal(res.status, 200, res.text);
        pages.push(res.json.map((o: ApiOrder) => o.uid));
        path = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
        assert.ok(pages.length <= 10, 'the pages end');
      }
      return pages;
    };
    const byAge = (await list({ owner: ivan.address, includeInsufficientBalance: true })).map((o) => o.uid);
    assert.deepEqual([...byAge].sort(), sorted(...placed));
    const all = await walk(`owner=${ivan.address}&includeInsufficientBalance=true&limit=3`);
    assert.deepEqual(all.map((p) => p.length), [3, 3, 1]);
    assert.deepEqual(all.flat(), byAge, 'oldest first, each once');
    const funded = await walk(`owner=${ivan.address}&limit=3`);
    assert.equal(funded.flat().length, 5);
    assert.ok(funded.some((page) => page.length < 3), 'a page thinned out by the flags is short');
    const exact = await walk(`owner=${ivan.address}&includeInsufficientBalance=true&limit=7`);
    assert.deepEqual(exact.map((p) => p.length), [7, 0], 'a full page may be followed by an empty one');
    const bad = await get(h.api, `/orders?limit=2&cursor=${Buffer.from('x y').toString('base64url')}`);
    assert.equal(bad.status, 400);
    assert.equal(bad.json.errorType, 'InvalidOrderData');
    assert.match(bad.json.description, /cursor/);
  });

  it('cancels with an eip712 or ethsign cancellation: 200 with an empty body, then AlreadyCancelled', async () => {
    const heidi = await h.trader({ [TKA]: e18(100) });
    const a = await place(heidi, { sellToken: TKA, buyToken: TKB, sellAmount: e18(1), buyAmount: e18(1) });
    const b = await place(heidi, { sellToken: TKA, buyToken: TKB, sellAmount: e18(2), buyAmount: e18(1) }, { scheme: 'ethsign' });
    assert.ok(uids(await solvable()).includes(a.uid));

    const first = await deleteOrder(h.api, a.uid, await signCancellation(heidi, h.domain, a.uid, 'eip712'));
    assert.equal(first.status, 200);
    assert.equal(first.text, '');
    const viaEthsign = await deleteOrder(h.api, b.uid, await signCancellation(heidi, h.domain, b.uid, 'ethsign'));
    assert.equal(viaEthsign.status, 200, viaEthsign.text);

    // Read-your-writes: the answer comes once the read models show the cancellation.
    assert.equal((await order(a.uid)).status, 'cancelled');
    assert.equal((await order(b.uid)).status, 'cancelled');
    const after = uids(await solvable());
    assert.ok(!after.includes(a.uid) && !after.includes(b.uid));

    const again = await deleteOrder(h.api, a.uid, await signCancellation(heidi, h.domain, a.uid));
    assert.equal(again.status, 400);
    assert.equal(again.json.errorType, 'AlreadyCancelled');
    const events = await get(h.api, `/orders/${a.uid}/events`);
    assert.deepEqual(events.json.map((e: { type: string }) => e.type), ['OrderCreated', 'OrderCancelled']);
  });

  it('refuses a cancellation signed by another key with 401 WrongOwner and changes nothing', async () => {
    const ivan = await h.trader({ [TKA]: e18(100) });
    const mallory = await h.trader();
    const o = await place(ivan, { sellToken: TKA, buyToken: TKB, sellAmount: e18(1), buyAmount: e18(1) });
    const before = await get(h.api, `/orders/${o.uid}/events`);
    const head = await h.book.events.head();

    const res = await deleteOrder(h.api, o.uid, await signCancellation(mallory, h.domain, o.uid));
    assert.equal(res.status, 401);
    assert.equal(res.json.errorType, 'WrongOwner');
    assert.equal(typeof res.json.description, 'string');

    assert.deepEqual((await get(h.api, `/orders/${o.uid}/events`)).json, before.json);
    assert.equal(await h.book.events.head(), head, 'nothing appended');
    assert.equal((await order(o.uid)).status, 'open');
    assert.ok(uids(await solvable()).includes(o.uid));
  });

  it('answers 404 OrderNotFound for an unknown order (GET, DELETE, events) and 400 for a bad UID', async () => {
    const judy = await h.trader();
    const unknown = '0x' + '12'.repeat(32) + judy.address.slice(2).toLowerCase() + 'ffffffff';
    for (const res of [
      await get(h.api, `/orders/${unknown}`),
      await deleteOrder(h.api, unknown, await signCancellation(judy, h.domain, unknown)),
      await get(h.api, `/orders/${unknown}/events`),
    ]) {
      assert.equal(res.status, 404, res.text);
      assert.equal(res.json.errorType, 'OrderNotFound');
    }
    for (const bad of ['0x1234', unknown.slice(0, -2), unknown + '00', unknown.replace('0x', '0xzz').slice(0, 114), 'nothex']) {
      const res = await get(h.api, `/orders/${bad}`);
      assert.equal(res.status, 400, bad);
      assert.equal(res.json.errorType, 'InvalidOrderUid', bad);
      const del = await deleteOrder(h.api, bad, await signCancellation(judy, h.domain, unknown));
      assert.equal(del.json.errorType, 'InvalidOrderUid', bad);
    }
  });

  it('serves an answer of several segments the same plain, gzipped (fetch, curl) and after a change inside one', async () => {
    // The answer is kept in segments of at most 384 orders: 400 orders of one owner make at least two.
    const lee = await h.trader({ [TKA]: e18(1000) });
    const separator = (await get(h.api, '/domain')).json.domainSeparator as string;
    const posted: SignedOrderCreation[] = [];
    for (let i = 0; i < 400; i++) {
      const signed = signOrderNative(lee.privateKey, separator, { sellToken: TKA, buyToken: TKC, sellAmount: e18(1) + BigInt(i), buyAmount: e18(1) });
      const res = await postOrder(h.api, signed.body);
      assert.equal(res.status, 201, res.text);
      posted.push(signed);
    }
    const lees = async (headers: Record<string, string>) => {
      const res = await get(h.api, '/solvable_orders', headers);
      assert.equal(res.status, 200, res.text);
      return { etag: res.headers.get('etag')!, encoding: res.headers.get('content-encoding'), type: res.headers.get('content-type'), orders: (res.json as ApiOrder[]).filter((o) => o.owner === lee.address.toLowerCase()) };
    };
    const plain = await lees({ 'accept-encoding': 'identity' });
    const gzipped = await lees({ 'accept-encoding': 'gzip' });
    assert.equal(plain.encoding, null);
    assert.equal(plain.type, 'application/json; charset=utf-8');
    assert.equal(gzipped.type, 'application/json; charset=utf-8');
    assert.equal(gzipped.encoding, 'gzip');
    assert.deepEqual(plain.orders.map((o) => o.uid), posted.map((o) => o.uid), 'every order, oldest first');
    assert.deepEqual(gzipped.orders, plain.orders);
    assert.equal(gzipped.etag, plain.etag);
    // curl runs apart (execFile, not execFileSync): the service answers from this process's event loop.
    const viaCurl = await promisify(execFile)('curl', ['--silent', '--fail', '--compressed', `${h.api}/solvable_orders`], { maxBuffer: 1 << 28 });
    assert.deepEqual(JSON.parse(viaCurl.stdout), (await get(h.api, '/solvable_orders', { 'accept-encoding': 'identity' })).json);

    // Cancel an order in the middle: the answer changes in its segment only, and reads the same both ways.
    const cancelled = posted[150];
    assert.equal((await deleteOrder(h.api, cancelled.uid, await signCancellation(lee, h.domain, cancelled.uid))).status, 200);
    const after = await lees({ 'accept-encoding': 'gzip' });
    assert.notEqual(after.etag, plain.etag);
    assert.deepEqual(after.orders.map((o) => o.uid), posted.filter((o) => o !== cancelled).map((o) => o.uid));
    assert.deepEqual((await lees({ 'accept-encoding': 'identity' })).orders, after.orders);
  });

  it('serves solvable orders with an ETag: 304 while nothing changes, a new ETag after a cancellation and after expiry', async () => {
    const kim = await h.trader({ [TKA]: e18(100) });
    const lasting = await place(kim, { sellToken: TKA, buyToken: TKB, sellAmount: e18(1), buyAmount: e18(1) });
    const expiring = await place(kim, { sellToken: TKA, buyToken: TKB, sellAmount: e18(2), buyAmount: e18(1), validTo: now() + 8 });

    const first = await get(h.api, '/solvable_orders');
    assert.equal(first.status, 200);
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^"[^"]+"$/);
    assert.ok(uids(first.json).includes(lasting.uid) && uids(first.json).includes(expiring.uid));
    const listed = first.json.find((o: ApiOrder) => o.uid === lasting.uid);
    assert.deepEqual(listed, await order(lasting.uid), 'the same Order as GET /orders/{UID}');

    const unchanged = await get(h.api, '/solvable_orders', { 'if-none-match': etag });
    assert.equal(unchanged.status, 304);
    assert.equal(unchanged.text, '');
    assert.equal(unchanged.headers.get('etag'), etag);
    assert.equal((await get(h.api, '/solvable_orders', { 'if-none-match': '"something-else"' })).status, 200);

    // After expiry: the order leaves the answer and the ETag changes.
    await until(async () => !uids(await solvable()).includes(expiring.uid), 'the order to expire', 20_000);
    const expired = await get(h.api, '/solvable_orders', { 'if-none-match': etag });
    assert.equal(expired.status, 200);
    assert.notEqual(expired.headers.get('etag'), etag);
    assert.ok(uids(expired.json).includes(lasting.uid));

    // After a cancellation: likewise.
    const etag2 = expired.headers.get('etag')!;
    assert.equal((await deleteOrder(h.api, lasting.uid, await signCancellation(kim, h.domain, lasting.uid))).status, 200);
    const cancelled = await get(h.api, '/solvable_orders', { 'if-none-match': etag2 });
    assert.equal(cancelled.status, 200);
    assert.ok(!uids(cancelled.json).includes(lasting.uid));
    assert.notEqual(cancelled.headers.get('etag'), etag2);
  });

  it('compresses solvable orders for a client that accepts gzip', async () => {
    const { request } = await import('../../support/http.js');
    const plain = await get(h.api, '/solvable_orders');
    const { gunzipSync } = await import('node:zlib');
    const res = await new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
      import('node:http').then(({ get: httpGet }) => {
        httpGet(`${h.api}/solvable_orders`, { headers: { 'accept-encoding': 'gzip' } }, (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => resolve({ encoding: r.headers['content-encoding'], body: Buffer.concat(chunks) }));
        }).on('error', reject);
      }, reject);
    });
    assert.equal(res.encoding, 'gzip');
    assert.deepEqual(JSON.parse(gunzipSync(res.body).toString()), plain.json);
    const identity = await request(`${h.api}/solvable_orders`, { headers: { 'accept-encoding': 'identity' } });
    assert.equal(identity.headers.get('content-encoding'), null);
    assert.deepEqual(identity.json, plain.json);
  });
});
