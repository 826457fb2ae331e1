/**
 * Today's CoW API beside the seed's (docs/orderbook-api.md): every refusal is a 4xx with the reference's
 * errorType and `{errorType, description}`, never a 5xx, and appends nothing to the log; checksummed
 * addresses are matched case-insensitively; quotes, app data, bulk cancellation (all or nothing), by_uids,
 * account pages, v2 trades and the auction behave as the reference documents.
 */
import assert from 'node:assert/strict';
import { getAddress, keccak256, toUtf8Bytes, type Wallet } from 'ethers';
import { e18 } from '../../support/onchain.js';
import { TOKENS, get, postOrder, startOrderbookService, type OrderbookHarness } from '../../support/orderbook.js';
import { http, postJson, type HttpResult } from '../../support/http.js';
import { signOrder, type OrderParams } from '../../support/orders.js';
import { signCancellations } from '../../support/cow-sdk.js';

const { TKA, TKB } = TOKENS;
/** A token nothing prices (the dev tokens all have built-in prices). */
const UNPRICED = '0x' + '77'.repeat(20);

describe('order book API: today\'s CoW API', function () {
  this.timeout(120_000);
  let h: OrderbookHarness;
  let alice: Wallet;
  let bob: Wallet;
  let v2: string;

  before(async () => {
    // TKA and TKB are priced by TOKEN_PRICES (TKB at half a native atom), overriding their built-in prices.
    h = await startOrderbookService({ TOKEN_PRICES: `${TKA}=1,${TKB}=0.5` });
    v2 = h.api.replace('/api/v1', '/api/v2');
    alice = await h.trader({ [TKA]: e18(1000) });
    bob = await h.trader({ [TKA]: e18(1000) });
  });
  after(() => h?.stop());

  const send = (method: string, path: string, body?: unknown) =>
    http(`${h.api}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });

  /** Runs `call`, checks a refusal with `status` and `errorType`, and that the log did not move. */
  async function refused(call: () => Promise<HttpResult>, status: number, errorType: string): Promise<HttpResult> {
    const head = await h.book.events.head();
    const res = await call();
    assert.equal(res.status, status, res.text);
    assert.deepEqual(Object.keys(res.json).sort(), ['description', 'errorType'], res.text);
    assert.equal(res.json.errorType, errorType, res.json.description);
    assert.doesNotMatch(res.json.description, /\n\s+at /, 'no stack trace');
    assert.equal(await h.book.events.head(), head, 'nothing appended');
    return res;
  }

  const quoteBody = (over: Record<string, unknown> = {}) => ({
    sellToken: getAddress(TKA),
    buyToken: getAddress(TKB),
    from: alice.address,
    kind: 'sell',
    sellAmountBeforeFee: e18(10).toString(),
    validFor: 600,
    ...over,
  });

  const place = async (trader: Wallet, over: Partial<OrderParams> = {}, extra: Record<string, unknown> = {}) => {
    const signed = await signOrder(trader, h.domain, {
      sellToken: TKA,
      buyToken: TKB,
      sellAmount: e18(1),
      buyAmount: e18(1),
      feeAmount: e18(1) / 100n,
      appData: keccak256(toUtf8Bytes(String(Math.random()))),
      ...over,
    });
    const res = await postOrder(h.api, { ...signed.body, ...extra });
    assert.equal(res.status, 201, res.text);
    return signed;
  };

  it('POST /quote prices sell (before and after fee) and buy quotes from the fee sources, and refuses bad requests', async () => {
    const before = (await postJson(`${h.api}/quote`, quoteBody())).json;
    const fee = BigInt(before.quote.feeAmount);
    assert.ok(fee > 0n);
    assert.equal(before.quote.sellAmount, (e18(10) - fee).toString());
    // 1 TKA = 1 native atom, 1 TKB = 0.5: twice as many TKB.
    assert.equal(before.quote.buyAmount, ((e18(10) - fee) * 2n).toString());
    assert.equal(before.quote.sellToken, TKA.toLowerCase());
    assert.equal(before.from, alice.address.toLowerCase());
    assert.ok(Number.isInteger(before.id) && Date.parse(before.expiration) > Date.now());
    const after = (await postJson(`${h.api}/quote`, quoteBody({ sellAmountBeforeFee: undefined, sellAmountAfterFee: e18(10).toString(), validFor: undefined, validTo: 4_000_000_000 }))).json;
    assert.equal(after.quote.sellAmount, e18(10).toString());
    assert.equal(after.quote.validTo, 4_000_000_000);
    const buy = (await postJson(`${h.api}/quote`, quoteBody({ kind: 'buy', sellAmountBeforeFee: undefined, buyAmountAfterFee: e18(4).toString() }))).json;
    assert.deepEqual([buy.quote.sellAmount, buy.quote.buyAmount, buy.quote.kind], [e18(2).toString(), e18(4).toString(), 'buy']);
    assert.notEqual(buy.id, after.id);
    const doc = '{"appCode":"q"}';
    const withDoc = (await postJson(`${h.api}/quote`, quoteBody({ appData: doc }))).json;
    assert.deepEqual([withDoc.quote.appData, withDoc.quote.appDataHash], [doc, keccak256(toUtf8Bytes(doc))]);

    const quote = (body: unknown) => () => postJson(`${h.api}/quote`, body);
    await refused(quote({ sellToken: TKA }), 400, 'MissingOrderData');
    await refused(quote('not json'), 400, 'InvalidOrderData');
    await refused(quote(quoteBody({ sellToken: '0x1234' })), 400, 'InvalidOrderData');
    await refused(quote(quoteBody({ buyAmountAfterFee: '1' })), 400, 'InvalidOrderData');
    await refused(quote(quoteBody({ kind: 'buy' })), 400, 'InvalidOrderData');
    await refused(quote(quoteBody({ validTo: 4_000_000_000 })), 400, 'InvalidOrderData');
    await refused(quote(quoteBody({ sellAmountBeforeFee: '0' })), 400, 'ZeroAmount');
    await refused(quote(quoteBody({ buyToken: TKA })), 400, 'SameBuyAndSellToken');
    await refused(quote(quoteBody({ validFor: undefined, validTo: 1 })), 400, 'InsufficientValidTo');
    await refused(quote(quoteBody({ sellAmountBeforeFee: '1' })), 400, 'SellAmountDoesNotCoverFee');
    await refused(quote(quoteBody({ appData: 'not json' })), 400, 'InvalidAppData');
    await refused(quote(quoteBody({ appData: doc, appDataHash: '0x' + '00'.repeat(32) })), 400, 'AppDataHashMismatch');
    await refused(quote(quoteBody({ buyToken: UNPRICED })), 404, 'NoLiquidity');
    await refused(quote(quoteBody({ sellToken: getAddress(UNPRICED) })), 404, 'NoLiquidity');
  });

  it('app data: PUT 201 then 200, GET by hash; refuses bad hashes, mismatches and bad documents', async () => {
    const doc = '{"appCode":"ethgate","metadata":{"quote":{"slippageBips":50}}}';
    const hash = keccak256(toUtf8Bytes(doc));
    const first = await send('PUT', `/app_data/${hash}`, { fullAppData: doc });
    assert.deepEqual([first.status, first.json], [201, hash]);
    const again = await send('PUT', '/app_data', { fullAppData: doc });
    assert.deepEqual([again.status, again.json], [200, hash]);
    assert.deepEqual((await get(h.api, `/app_data/${hash.toUpperCase().replace('0X', '0x')}`)).json, { fullAppData: doc });

    await refused(() => get(h.api, `/app_data/0x${'ab'.repeat(32)}`), 404, 'NotFound');
    await refused(() => get(h.api, '/app_data/0x12'), 400, 'InvalidAppDataHash');
    await refused(() => send('PUT', '/app_data/0x12', { fullAppData: doc }), 400, 'InvalidAppDataHash');
    await refused(() => send('PUT', `/app_data/0x${'ab'.repeat(32)}`, { fullAppData: doc }), 400, 'AppDataHashMismatch');
    await refused(() => send('PUT', '/app_data', { fullAppData: 'not json' }), 400, 'AppDataInvalid');
    await refused(() => send('PUT', '/app_data', { fullAppData: JSON.stringify({ pad: 'x'.repeat(1000) }) }), 400, 'AppDataInvalid');
    await refused(() => send('PUT', '/app_data', {}), 400, 'MissingOrderData');
    await refused(() => send('PUT', '/app_data', '{'), 400, 'InvalidOrderData');
  });

  it('orders: appData as the document or the hash, appDataHash checked, quoteId checked, a quote waives no non-zero fee', async () => {
    const doc = '{"appCode":"order-doc"}';
    const hash = keccak256(toUtf8Bytes(doc));
    const quote = (await postJson(`${h.api}/quote`, quoteBody({ sellAmountBeforeFee: undefined, sellAmountAfterFee: e18(1).toString() }))).json;
    const params = { sellToken: TKA, buyToken: TKB, sellAmount: e18(1), buyAmount: BigInt(quote.quote.buyAmount), feeAmount: 0n, appData: hash };
    const signed = await signOrder(alice, h.domain, params);
    await refused(() => postOrder(h.api, { ...signed.body, appData: doc, appDataHash: '0x' + '00'.repeat(32) }), 400, 'AppDataHashMismatch');
    await refused(() => postOrder(h.api, { ...signed.body, appData: '{"unterminated' }), 400, 'InvalidAppData');
    await refused(() => postOrder(h.api, { ...signed.body, quoteId: 999_999 }), 400, 'QuoteNotFound');
    const other = (await postJson(`${h.api}/quote`, quoteBody({ kind: 'buy', sellAmountBeforeFee: undefined, buyAmountAfterFee: '1000' }))).json;
    await refused(() => postOrder(h.api, { ...signed.body, quoteId: other.id }), 400, 'InvalidQuote');
    // A non-zero feeAmount keeps the seed's minimal fee, quote or not.
    const underpaid = await signOrder(alice, h.domain, { ...params, feeAmount: 1n });
    await refused(() => postOrder(h.api, { ...underpaid.body, quoteId: quote.id }), 400, 'InsufficientFee');
    const res = await postOrder(h.api, { ...signed.body, appData: doc, appDataHash: hash, quoteId: quote.id, fullBalanceCheck: false, from: alice.address });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json, signed.uid);
    const order = (await get(h.api, `/orders/${signed.uid}`)).json;
    assert.deepEqual([order.appData, order.fullAppData, order.class, order.quoteId], [hash, doc, 'market', quote.id]);
    assert.deepEqual((await get(h.api, `/app_data/${hash}`)).json, { fullAppData: doc }, 'the document is registered with the order');
    // The hash form finds a registered document.
    const byHash = await place(alice, { appData: hash });
    assert.equal((await get(h.api, `/orders/${byHash.uid}`)).json.fullAppData, doc);
    // The document goes in with its order or not at all: an order refused (here a duplicate of one placed
    // by the hash alone) registers nothing.
    const unknownDoc = '{"appCode":"refused-with-its-order"}';
    const unknownHash = keccak256(toUtf8Bytes(unknownDoc));
    const first = await place(alice, { appData: unknownHash });
    await refused(() => postOrder(h.api, { ...first.body, appData: unknownDoc, appDataHash: unknownHash }), 400, 'DuplicatedOrder');
    await refused(() => get(h.api, `/app_data/${unknownHash}`), 404, 'NotFound');
  });

  it('DELETE /orders cancels up to 128 orders all or nothing, eip712 and ethsign; 401 for another key', async () => {
    const [a1, a2, a3] = [await place(alice), await place(alice), await place(alice)];
    const b1 = await place(bob);
    const unknown = '0x' + '11'.repeat(56);
    const cancel = async (signer: Wallet, uids: string[], scheme: 'eip712' | 'ethsign' = 'eip712') => {
      const signature = scheme === 'eip712' ? await signCancellations(signer, h.domain, uids) : await signer.signMessage(
        (await import('ethers')).getBytes((await import('../../../src/orderbook/domain/eip712.js')).cancellationsDigest(h.book.book.domainSeparator, uids)),
      );
      return send('DELETE', '/orders', { orderUids: uids, signature, signingScheme: scheme });
    };
    await refused(() => cancel(alice, [a1.uid, unknown]), 404, 'OrderNotFound');
    await refused(() => cancel(alice, [a1.uid, b1.uid]), 401, 'WrongOwner');
    await refused(() => cancel(bob, [a1.uid]), 401, 'WrongOwner');
    await refused(() => send('DELETE', '/orders', {}), 400, 'MissingOrderData');
    await refused(() => send('DELETE', '/orders', { orderUids: Array(129).fill(a1.uid), signature: '0x' + '11'.repeat(65), signingScheme: 'eip712' }), 400, 'InvalidOrderData');
    await refused(() => send('DELETE', '/orders', { orderUids: [a1.uid], signature: '0x' + '00'.repeat(65), signingScheme: 'eip712' }), 400, 'InvalidSignature');
    assert.equal((await get(h.api, `/orders/${a1.uid}`)).json.status, 'open', 'nothing cancelled');

    const ok = await cancel(alice, [a1.uid, a2.uid]);
    assert.deepEqual([ok.status, ok.json], [200, 'Cancelled']);
    const viaEthSign = await cancel(alice, [a3.uid], 'ethsign');
    assert.equal(viaEthSign.status, 200, viaEthSign.text);
    for (const o of [a1, a2, a3]) assert.equal((await get(h.api, `/orders/${o.uid}`)).json.status, 'cancelled');
    await refused(() => cancel(alice, [a1.uid]), 400, 'AlreadyCancelled');
    assert.equal((await get(h.api, `/orders/${b1.uid}`)).json.status, 'open');
  });

  it('by_uids, status, account pages (newest first, checksummed owner), v2 trades and tx orders refuse bad input', async () => {
    const carol = await h.trader({ [TKA]: e18(10) });
    const placed = [];
    for (let i = 0; i < 3; i++) placed.push(await place(carol));
    const unknown = '0x' + '22'.repeat(56);
    const byUids = await postJson(`${h.api}/orders/by_uids`, [placed[0].uid.toUpperCase().replace('0X', '0x'), unknown]);
    assert.deepEqual(byUids.json.map((e: { order: { uid: string } }) => e.order.uid), [placed[0].uid]);
    await refused(() => postJson(`${h.api}/orders/by_uids`, { uids: [] }), 400, 'InvalidOrderData');
    await refused(() => postJson(`${h.api}/orders/by_uids`, Array(129).fill(unknown)), 400, 'InvalidOrderData');
    await refused(() => postJson(`${h.api}/orders/by_uids`, ['0x12']), 400, 'InvalidOrderData');

    assert.deepEqual((await get(h.api, `/orders/${placed[0].uid}/status`)).json, { type: 'active' });
    await refused(() => get(h.api, `/orders/${unknown}/status`), 404, 'OrderNotFound');
    await refused(() => get(h.api, '/orders/0x12/status'), 400, 'InvalidOrderUid');

    const page = (q: string) => get(h.api, `/account/${carol.address}/orders${q}`);
    assert.deepEqual((await page('')).json.map((o: { uid: string }) => o.uid), placed.map((o) => o.uid).reverse());
    assert.deepEqual((await page('?offset=1&limit=1')).json.map((o: { uid: string }) => o.uid), [placed[1].uid]);
    await refused(() => page('?limit=0'), 400, 'InvalidLimit');
    await refused(() => page('?limit=1001'), 400, 'InvalidLimit');
    await refused(() => page('?limit=ten'), 400, 'InvalidOrderData');
    await refused(() => get(h.api, '/account/0x1234/orders'), 400, 'InvalidAddress');

    await refused(() => get(v2, '/trades'), 400, 'InvalidTradeFilter');
    await refused(() => get(v2, `/trades?owner=${carol.address}&orderUid=${unknown}`), 400, 'InvalidTradeFilter');
    await refused(() => get(v2, `/trades?owner=${carol.address}&limit=0`), 400, 'InvalidLimit');
    await refused(() => get(v2, '/trades?owner=carol'), 400, 'InvalidOrderData');
    assert.deepEqual((await get(v2, `/trades?owner=${carol.address}`)).json, []);

    assert.deepEqual((await get(h.api, `/transactions/0x${'ab'.repeat(32)}/orders`)).json, []);
    await refused(() => get(h.api, '/transactions/0x12/orders'), 400, 'InvalidTxHash');
  });

  it('native price, total surplus, version and the auction with its ETag', async () => {
    assert.deepEqual((await get(h.api, `/token/${getAddress(TKB)}/native_price`)).json, { price: 0.5 });
    await refused(() => get(h.api, `/token/${UNPRICED}/native_price`), 404, 'NoLiquidity');
    await refused(() => get(h.api, '/token/0xzz/native_price'), 400, 'InvalidAddress');
    assert.deepEqual((await get(h.api, `/users/${alice.address}/total_surplus`)).json, { totalSurplus: '0' });
    await refused(() => get(h.api, '/users/alice/total_surplus'), 400, 'InvalidAddress');
    const version = await get(h.api, '/version');
    assert.match(version.headers.get('content-type')!, /^text\/plain/);
    assert.match(version.text, /^\d+\.\d+\.\d+/);

    const first = await get(h.api, '/auction');
    assert.equal(first.status, 200);
    const etag = first.headers.get('etag')!;
    assert.ok(Number.isInteger(first.json.id) && first.json.block > 0);
    const uids = first.json.orders.map((o: { uid: string }) => o.uid);
    assert.deepEqual(uids, (await get(h.api, '/solvable_orders')).json.map((o: { uid: string }) => o.uid));
    const shown = first.json.orders[0];
    assert.deepEqual(
      [typeof shown.created, shown.preInteractions, shown.protocolFees, shown.class, typeof shown.executed],
      ['string', [], [], shown.quote ? 'market' : 'limit', 'string'],
      'the reference\'s AuctionOrder',
    );
    assert.equal(first.json.prices[TKA.toLowerCase()], e18(1).toString());
    assert.equal(first.json.prices[TKB.toLowerCase()], (e18(1) / 2n).toString());
    assert.equal((await get(h.api, '/auction', { 'if-none-match': etag })).status, 304);
    await place(alice);
    const next = await get(h.api, '/auction');
    assert.notEqual(next.json.id, first.json.id, 'a new id when the set changes');
    assert.equal(next.json.orders.length, first.json.orders.length + 1);
  });

  it('the OpenAPI document covers every new endpoint', async () => {
    const doc = (await get(h.api, '/openapi.json')).json;
    for (const path of [
      '/api/v1/quote', '/api/v1/app_data', '/api/v1/app_data/{app_data_hash}', '/api/v1/orders', '/api/v1/orders/by_uids',
      '/api/v1/orders/{UID}/status', '/api/v1/account/{owner}/orders', '/api/v2/trades', '/api/v1/transactions/{txHash}/orders',
      '/api/v1/token/{token}/native_price', '/api/v1/users/{address}/total_surplus', '/api/v1/auction', '/api/v1/version',
    ]) assert.ok(doc.paths[path], path);
    assert.ok(doc.paths['/api/v1/orders'].delete, 'DELETE /api/v1/orders');
  });
});
