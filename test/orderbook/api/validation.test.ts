/**
 * Every refusal of the order book API with its status and errorType, through HTTP with ethers v6 signing:
 * malformed bodies (MissingOrderData, InvalidOrderData, uint256 bounds, Content-Type, size), the order's
 * own rules, signatures and owners, duplicates, fees (TKC is priced with TOKEN_PRICES), balances, UIDs and
 * query parameters. A refusal appends nothing to the log. Also the domain and the fee endpoint.
 */
import assert from 'node:assert/strict';
import { TypedDataEncoder, Wallet } from 'ethers';
import type { OrderCreation } from '../../../src/generated/orderbook/order-creation.js';
import { signOrder, type OrderParams } from '../../support/orders.js';
import { get, postOrder, startOrderbookService, TOKENS, type OrderbookHarness } from '../../support/orderbook.js';
import { http, request, type HttpResult } from '../../support/http.js';
import { e18 } from '../../support/onchain.js';
import { WsClient } from '../../support/ws.js';

const { TKA, TKB, TKC } = TOKENS;
const now = () => Math.floor(Date.now() / 1000);
const UINT256_MAX = (1n << 256n) - 1n;
// Native-token wei per base unit of TKC (6 decimals): with anvil's gas price the minimal fee is a few TKC.
const TKC_PRICE = '100000000';

describe('order book API: refusals, domain and fees', function () {
  this.timeout(120_000);
  let h: OrderbookHarness;
  let alice: Wallet;

  before(async () => {
    h = await startOrderbookService({ TOKEN_PRICES: `${TKC}=${TKC_PRICE}`, MIN_VALID_TO_SECONDS: '60' });
    alice = await h.trader({ [TKA]: e18(1000), [TKC]: 1_000_000_000n });
  });
  after(() => h?.stop());

  const params = (over: Partial<OrderParams> = {}): OrderParams => ({
    sellToken: TKA,
    buyToken: TKB,
    sellAmount: e18(1),
    buyAmount: e18(1),
    // Distinct orders: each test's bodies differ in appData.
    appData: '0x' + Math.floor(Math.random() * 2 ** 48).toString(16).padStart(64, '0'),
    ...over,
  });

  /** Posts `body` and checks the refusal, and that the log did not move. */
  async function refused(body: unknown, status: number, errorType: string, description?: RegExp): Promise<HttpResult> {
    const head = await h.book.events.head();
    const res = typeof body === 'function' ? await (body as () => Promise<HttpResult>)() : await postOrder(h.api, body);
    assert.equal(res.status, status, res.text);
    assert.deepEqual(Object.keys(res.json).sort(), ['description', 'errorType']);
    assert.equal(res.json.errorType, errorType, res.json.description);
    assert.ok(res.json.description.length > 0);
    assert.doesNotMatch(res.json.description, /\n\s+at /, 'no stack trace');
    if (description) assert.match(res.json.description, description);
    assert.equal(await h.book.events.head(), head, 'nothing appended');
    return res;
  }

  async function body(over: Partial<OrderParams> = {}, change: (b: OrderCreation) => void = () => {}): Promise<OrderCreation> {
    const signed = await signOrder(alice, h.domain, params(over));
    change(signed.body);
    return signed.body;
  }

  it('GET /domain: the GPv2 domain whose separator is the one ethers computes and the contract reports', async () => {
    const res = await get(h.api, '/domain');
    assert.equal(res.status, 200);
    assert.equal(res.json.name, 'Gnosis Protocol');
    assert.equal(res.json.version, 'v2');
    assert.equal(res.json.chainId, 1);
    assert.equal(res.json.verifyingContract, h.settlement.toLowerCase());
    assert.equal(res.json.domainSeparator, TypedDataEncoder.hashDomain(h.domain));
    assert.equal(res.json.domainSeparator, h.book.chain.deployment.domainSeparator);
  });

  it('MissingOrderData for a missing field, InvalidOrderData for a malformed one', async () => {
    for (const field of ['sellToken', 'buyToken', 'sellAmount', 'buyAmount', 'validTo', 'appData', 'feeAmount', 'kind', 'partiallyFillable', 'signingScheme', 'signature']) {
      await refused(await body({}, (b) => delete (b as unknown as Record<string, unknown>)[field]), 400, 'MissingOrderData', new RegExp(field));
    }
    const malformed: [string, unknown][] = [
      ['sellToken', '0x1234'],
      ['buyToken', 'TKB'],
      ['receiver', '0x' + 'zz'.repeat(20)],
      ['sellAmount', '-1'],
      ['sellAmount', 1000],
      ['buyAmount', '1e18'],
      ['feeAmount', '0x10'],
      ['validTo', 2 ** 32],
      ['validTo', '1800000000'],
      ['appData', '0x00'],
      ['kind', 'limit'],
      ['partiallyFillable', 'false'],
      ['sellTokenBalance', 'erc721'],
      ['buyTokenBalance', 'external'],
      ['signingScheme', 'ecdsa'],
      ['signature', '0xabc'],
      ['from', 'alice'],
    ];
    for (const [field, value] of malformed) {
      await refused(await body({}, (b) => ((b as unknown as Record<string, unknown>)[field] = value)), 400, 'InvalidOrderData');
    }
    for (const raw of ['[]', '"order"', 'null', '42']) await refused(raw, 400, 'InvalidOrderData', /object/);
    // A field the book does not know is ignored, as the reference service ignores it (today's CoW API).
    const extra = await postOrder(h.api, { ...(await body({})), unexpected: 1 });
    assert.equal(extra.status, 201, extra.text);
    await refused('{"sellToken": ', 400, 'InvalidOrderData', /not JSON/);
  });

  it('InvalidOrderData for an amount above 2^256-1; 2^256-1 itself is accepted', async () => {
    const over = (UINT256_MAX + 1n).toString();
    for (const field of ['sellAmount', 'buyAmount', 'feeAmount'] as const) {
      await refused(await body({}, (b) => (b[field] = over)), 400, 'InvalidOrderData', new RegExp(`${field}.*2\\^256`));
    }
    await refused(await body({}, (b) => (b.sellAmount = '1' + '0'.repeat(78))), 400, 'InvalidOrderData');
    // The bound itself is a valid amount.
    const atBound = await postOrder(h.api, await body({ buyAmount: UINT256_MAX }));
    assert.equal(atBound.status, 201, atBound.text);
    assert.equal((await get(h.api, `/orders/${atBound.json}`)).json.buyAmount, UINT256_MAX.toString());
    await refused(await body({ sellAmount: UINT256_MAX, feeAmount: 1n }), 400, 'SellAmountOverflow');
  });

  it('ZeroAmount, SameBuyAndSellToken, InsufficientValidTo', async () => {
    await refused(await body({ sellAmount: 0n }), 400, 'ZeroAmount');
    await refused(await body({ buyAmount: 0n }), 400, 'ZeroAmount');
    await refused(await body({ buyToken: TKA.toUpperCase().replace('0X', '0x') }), 400, 'SameBuyAndSellToken');
    await refused(await body({ validTo: now() + 30 }), 400, 'InsufficientValidTo');
    await refused(await body({ validTo: now() - 3600 }), 400, 'InsufficientValidTo');
    await refused(await body({ validTo: 0 }), 400, 'InsufficientValidTo');
  });

  it('ExcessiveValidTo beyond a year for an order without a quote (a limit order); a presigned one is not capped', async () => {
    const year = 365 * 24 * 3600;
    await refused(await body({ validTo: now() + year + 120 }), 400, 'ExcessiveValidTo', /limit order may be valid until \d+ at most/);
    await refused(await body({ validTo: 0xffffffff }), 400, 'ExcessiveValidTo');
    const within = await postOrder(h.api, await body({ validTo: now() + year - 120 }));
    assert.equal(within.status, 201, within.text);
    const presigned = await postOrder(h.api, await body({ validTo: 0xffffffff }, (b) => {
      b.signingScheme = 'presign';
      b.signature = alice.address.toLowerCase();
      (b as { from?: string }).from = alice.address;
    }));
    assert.equal(presigned.status, 201, presigned.text);
  });

  it('InvalidSignature: not 65 bytes, a bad v, r zero, and a signature of another order that recovers someone else', async () => {
    await refused(await body({}, (b) => (b.signature = '0x' + '11'.repeat(64))), 400, 'InvalidSignature');
    await refused(await body({}, (b) => (b.signature = b.signature.slice(0, -2) + '1d')), 400, 'InvalidSignature');
    await refused(await body({}, (b) => (b.signature = '0x' + '00'.repeat(32) + b.signature.slice(66))), 400, 'InvalidSignature');
    // A valid signature of the same order with another field changed recovers some other address: that
    // address has no balance, unless `from` says who it should be.
    const tampered = await body({}, (b) => (b.sellAmount = (BigInt(b.sellAmount) + 1n).toString()));
    await refused(tampered, 400, 'InsufficientBalance');
    await refused({ ...tampered, from: alice.address }, 400, 'WrongOwner');
  });

  it('WrongOwner when from is not the signer; eip1271 without from is MissingFrom', async () => {
    const bob = Wallet.createRandom();
    await refused(await body({}, (b) => (b.from = bob.address)), 400, 'WrongOwner', new RegExp(bob.address.toLowerCase()));
    await refused(await body({}, (b) => ((b.signingScheme = 'eip1271'), (b.signature = '0x'))), 400, 'MissingFrom');
  });

  it('DuplicatedOrder for the same order twice, eip712 then ethsign of the same order included', async () => {
    // validTo fixed here: left to signOrder, the two signatures could fall on either side of a second.
    const p = params({ validTo: now() + 3600 });
    const first = await signOrder(alice, h.domain, p);
    assert.equal((await postOrder(h.api, first.body)).status, 201);
    await refused(first.body, 400, 'DuplicatedOrder');
    const sameOrderEthsign = await signOrder(alice, h.domain, p, { scheme: 'ethsign' });
    assert.equal(sameOrderEthsign.uid, first.uid);
    await refused(sameOrderEthsign.body, 400, 'DuplicatedOrder');
  });

  it('InsufficientBalance for an owner without the sell token, InsufficientAllowance for one without allowance', async () => {
    const poor = await h.trader();
    const signed = await signOrder(poor, h.domain, params());
    await refused(signed.body, 400, 'InsufficientBalance');
    const noAllowance = await h.trader();
    const { testToken, mined } = await import('../../support/solver.js');
    await mined(testToken(TKA, noAllowance).mint(noAllowance.address, e18(100)));
    await refused((await signOrder(noAllowance, h.domain, params())).body, 400, 'InsufficientAllowance');
    // Enough for the sell amount but not for sell amount + fee (a fee above TKA's minimal fee).
    await refused(await body({ sellAmount: e18(999.5), feeAmount: e18(1) }), 400, 'InsufficientBalance');
  });

  it('GET /tokens/{sellToken}/fee: a quote for a priced token, 404 NotFound for one without a price', async () => {
    const res = await get(h.api, `/tokens/${TKC}/fee`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.json).sort(), ['expirationDate', 'feeRatio', 'minimalFee']);
    assert.match(res.json.minimalFee, /^[1-9][0-9]*$/);
    assert.equal(res.json.feeRatio, 0);
    assert.ok(Date.parse(res.json.expirationDate) > Date.now(), res.json.expirationDate);
    const gasPrice = BigInt(await h.provider.send('eth_gasPrice', []));
    // minimalFee = ceil(gasPrice × GAS_PER_TRADE (100000 by default) / price), for the gas price then.
    const expected = (gasPrice * 100_000n + BigInt(TKC_PRICE) - 1n) / BigInt(TKC_PRICE);
    assert.ok(BigInt(res.json.minimalFee) <= expected * 2n && BigInt(res.json.minimalFee) * 2n >= expected, `${res.json.minimalFee} vs ${expected}`);

    const unpriced = await get(h.api, `/tokens/0x${'77'.repeat(20)}/fee`);
    assert.equal(unpriced.status, 404);
    assert.equal(unpriced.json.errorType, 'NotFound');
    const bad = await get(h.api, '/tokens/0x1234/fee');
    assert.equal(bad.status, 400);
    assert.equal(bad.json.errorType, 'InvalidOrderData');
  });

  it('InsufficientFee for a non-zero fee below the lowest unexpired quote of a priced sell token; at the quote, or 0, it is accepted', async () => {
    const quote = await get(h.api, `/tokens/${TKC}/fee`);
    const fee = BigInt(quote.json.minimalFee);
    const over = { sellToken: TKC, buyToken: TKB, sellAmount: 1_000_000n };
    await refused(await body({ ...over, feeAmount: fee - 1n }), 400, 'InsufficientFee', new RegExp(String(fee)));
    await refused(await body({ ...over, feeAmount: 1n }), 400, 'InsufficientFee');
    const ok = await signOrder(alice, h.domain, params({ ...over, feeAmount: fee }));
    const res = await postOrder(h.api, ok.body);
    assert.equal(res.status, 201, res.text);
    // Today's rule: feeAmount 0 takes the fee in the price, with or without a quote (a limit order).
    const zero = await signOrder(alice, h.domain, params({ ...over, feeAmount: 0n }));
    assert.equal((await postOrder(h.api, zero.body)).status, 201);
    assert.equal((await get(h.api, `/orders/${zero.uid}`)).json.class, 'limit');
    // A sell token nothing prices has no minimal fee (a presign order: no balance is read for it).
    const unpriced = await body({ sellToken: '0x' + '77'.repeat(20), feeAmount: 1n }, (b) => {
      b.signingScheme = 'presign';
      b.signature = alice.address.toLowerCase();
    });
    const accepted = await postOrder(h.api, unpriced);
    assert.equal(accepted.status, 201, accepted.text);
  });

  it('InvalidOrderData for a wrong Content-Type; 413 PayloadTooLarge for an oversized body', async () => {
    const valid = JSON.stringify(await body());
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
      await refused(
        () => request(`${h.api}/orders`, { method: 'POST', headers: type ? { 'content-type': type } : {}, body: valid }),
        400,
        'InvalidOrderData',
        /Content-Type/,
      );
    }
    const padded = { ...(await body()), signature: '0x' + '00'.repeat(40_000) };
    await refused(padded, 413, 'PayloadTooLarge');
    // A JSON charset parameter is fine.
    const res = await request(`${h.api}/orders`, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8' }, body: valid });
    assert.equal(res.status, 201, res.text);
  });

  it('400 for bad query parameters of /orders, /trades and /events, naming the parameter', async () => {
    const bad: [string, string][] = [
      ['/orders?owner=0x1234', 'owner'],
      ['/orders?sellToken=abc', 'sellToken'],
      ['/orders?buyToken=', 'buyToken'],
      ['/orders?includeFullyExecuted=yes', 'includeFullyExecuted'],
      ['/orders?includeInvalidated=1', 'includeInvalidated'],
      ['/orders?includeInsufficientBalance=TRUE', 'includeInsufficientBalance'],
      ['/orders?minValidTo=-1', 'minValidTo'],
      ['/orders?minValidTo=soon', 'minValidTo'],
      ['/orders?owner=' + TKA + '&owner=' + TKB, 'owner'],
      ['/orders?colour=red', 'colour'],
      ['/trades?limit=0', 'limit'],
      ['/trades?limit=1001', 'limit'],
      ['/trades?offset=-1', 'offset'],
      ['/trades?offset=10001', 'offset'],
      ['/orders?limit=1001', 'limit'],
      ['/orders?limit=0', 'limit'],
      ['/orders?cursor=not*base64', 'cursor'],
      ['/orders?cursor=' + Buffer.from('2026-01-01 nonsense').toString('base64url'), 'cursor'],
      ['/trades?orderUid=0x12', 'orderUid'],
      ['/trades?owner=nobody', 'owner'],
      ['/events?after=-1', 'after'],
      ['/events?after=abc', 'after'],
      ['/events?limit=1001', 'limit'],
      ['/events?limit=0', 'limit'],
    ];
    for (const [path, parameter] of bad) {
      const res = await refused(() => get(h.api, path), 400, 'InvalidOrderData');
      assert.match(res.json.description, new RegExp(parameter), path);
    }
  });

  it('answers JSON errors for unknown routes and methods', async () => {
    const missing = await get(h.api, '/nothing-here');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.errorType, 'NotFound');
    const method = await http(`${h.api}/solvable_orders`, { method: 'POST' });
    assert.equal(method.status, 405);
    assert.equal(method.json.errorType, 'MethodNotAllowed');
    // An upgrade the order book does not take: refused by the listener, in the order book's shape.
    const upgrade = await WsClient.refusal(`${h.api.replace('http', 'ws')}/orders`);
    assert.deepEqual([upgrade.status, upgrade.body.errorType], [404, 'NotFound']);
  });
});
