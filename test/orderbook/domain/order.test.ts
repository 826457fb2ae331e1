import assert from 'node:assert/strict';
import { Wallet } from 'ethers';
import type { OrderCreation } from '../../../src/generated/orderbook/order-creation.js';
import { domainSeparator, gpv2Domain, orderDigest, unpackOrderUid } from '../../../src/orderbook/domain/eip712.js';
import { OrderbookError, orderbookErrors } from '../../../src/orderbook/domain/errors.js';
import { statusOf } from '../../../src/orderbook/api/errors.js';
import { verifyCancellation } from '../../../src/orderbook/domain/cancellation.js';
import {
  UINT256_MAX,
  checkBalance,
  checkFee,
  paysSignedFee,
  isFullyExecuted,
  parseOrderCreation,
  parseOrderUid,
  requiredFee,
  validateOrderCreation,
  type ValidatedOrder,
} from '../../../src/orderbook/domain/order.js';
import { orderCreation, signCancellation, signOrder } from '../../support/orders.js';
import { DEV_KEYS, VECTOR_ORDER, VECTOR_SEPARATOR, VECTOR_UID } from '../../support/vectors.js';

const DOMAIN = gpv2Domain(1, '0x9008D19f58AAbD9eD0D60971565AA8510560ab41');
const SEPARATOR = domainSeparator(DOMAIN);
const NOW = 1_800_000_000;
const CONTEXT = { domainSeparator: SEPARATOR, now: NOW, minValidToSeconds: 60 };
const SELL_TOKEN = '0x' + 'a1'.repeat(20);
const BUY_TOKEN = '0x' + 'b2'.repeat(20);
const alice = new Wallet(DEV_KEYS[1]);
const bob = new Wallet(DEV_KEYS[2]);

const PARAMS = { sellToken: SELL_TOKEN, buyToken: BUY_TOKEN, sellAmount: 1000n, buyAmount: 900n, feeAmount: 10n, validTo: NOW + 600 };

/** Asserts that `fn` throws the OrderbookError with this status and errorType. */
function assertRefused(fn: () => unknown, status: number, errorType: string, description?: RegExp): OrderbookError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof OrderbookError, `expected ${errorType}, got ${String(caught)}`);
  assert.equal(caught.errorType, errorType, caught.description);
  assert.equal(statusOf(caught), status);
  assert.ok(caught.description.length > 0);
  if (description) assert.match(caught.description, description);
  assert.deepEqual(caught.toBody(), { errorType, description: caught.description });
  return caught;
}

/** An order body signed by alice, changed by `change` before or after signing. */
async function signed(change: (body: OrderCreation) => void = () => {}, params = PARAMS) {
  const order = await signOrder(alice, DOMAIN, params);
  change(order.body);
  return order;
}

describe('orderbook order validation', () => {
  it('validates an eip712 order: owner, UID, digest, lowercase fields, defaults', async () => {
    const { body, uid, owner } = await signOrder(alice, DOMAIN, { ...PARAMS, sellToken: '0x' + 'A1'.repeat(20) });
    delete body.receiver;
    delete body.sellTokenBalance;
    delete body.buyTokenBalance;
    const order = validateOrderCreation(body, CONTEXT);
    assert.equal(order.owner, alice.address.toLowerCase());
    assert.equal(order.owner, owner);
    assert.equal(order.uid, uid);
    assert.equal(order.sellToken, SELL_TOKEN);
    assert.equal(order.receiver, null);
    assert.equal(order.sellTokenBalance, 'erc20');
    assert.equal(order.buyTokenBalance, 'erc20');
    assert.equal(order.sellAmount, 1000n);
    assert.equal(order.feeAmount, 10n);
    assert.deepEqual(unpackOrderUid(order.uid), { digest: order.digest, owner: order.owner, validTo: PARAMS.validTo });
    assert.equal(order.digest, orderDigest(SEPARATOR, order));
  });

  it('validates an ethsign order, with a matching from', async () => {
    const { body, uid } = await signOrder(alice, DOMAIN, PARAMS, { scheme: 'ethsign', withFrom: true });
    const order = validateOrderCreation(body, CONTEXT);
    assert.equal(order.uid, uid);
    assert.equal(order.signingScheme, 'ethsign');
  });

  it('reproduces the UID of the test vector from the order body', () => {
    // The vector's owner signature is not at hand as a key; a presign body names the owner directly.
    const body = orderCreation(VECTOR_ORDER, 'presign', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    const order = validateOrderCreation(body, { domainSeparator: VECTOR_SEPARATOR, now: NOW, minValidToSeconds: 0 });
    assert.equal(order.uid, VECTOR_UID);
  });

  it('refuses a body that fails the schema: MissingOrderData for a missing field, InvalidOrderData otherwise', async () => {
    const { body } = await signed();
    const without = { ...body } as Partial<OrderCreation>;
    delete without.buyAmount;
    assertRefused(() => parseOrderCreation(without), 400, 'MissingOrderData', /order must have buyAmount/);
    const invalid: Array<[string, unknown, RegExp]> = [
      ['sellToken', '0x1234', /order\.sellToken must be a 20-byte address/],
      ['sellAmount', '-1', /order\.sellAmount must be a uint256/],
      ['sellAmount', 1000, /order\.sellAmount must be a uint256/],
      ['buyAmount', '1e18', /order\.buyAmount must be a uint256/],
      ['validTo', 2 ** 32, /order\.validTo must be a uint32/],
      ['validTo', 1.5, /order\.validTo must be a uint32/],
      ['appData', '0x12', /order\.appData must be 32 bytes/],
      ['kind', 'limit', /order\.kind must be the order kind/],
      ['sellTokenBalance', 'erc721', /order\.sellTokenBalance/],
      ['buyTokenBalance', 'external', /order\.buyTokenBalance/],
      ['signingScheme', 'eip191', /order\.signingScheme/],
      ['signature', '0x123', /order\.signature/],
      ['partiallyFillable', 'false', /order\.partiallyFillable must be a boolean/],
      ['unexpected', 1, /order has an unknown field unexpected/],
    ];
    for (const [field, value, message] of invalid) {
      assertRefused(() => parseOrderCreation({ ...body, [field]: value }), 400, 'InvalidOrderData', message);
    }
    for (const notAnObject of [null, [], 'order', 42]) {
      assertRefused(() => parseOrderCreation(notAnObject), 400, 'InvalidOrderData', /^order must be a JSON object$/);
    }
  });

  it('refuses amounts beyond 2^256-1 and accepts 2^256-1', async () => {
    const { body } = await signed();
    for (const field of ['sellAmount', 'buyAmount', 'feeAmount']) {
      assertRefused(
        () => parseOrderCreation({ ...body, [field]: (UINT256_MAX + 1n).toString() }),
        400,
        'InvalidOrderData',
        new RegExp(`${field} exceeds 2\\^256-1`),
      );
      assert.equal(parseOrderCreation({ ...body, [field]: UINT256_MAX.toString() })[field as 'sellAmount'], UINT256_MAX);
    }
    assertRefused(() => parseOrderCreation({ ...body, sellAmount: '9'.repeat(79) }), 400, 'InvalidOrderData');
  });

  it('refuses ZeroAmount, SameBuyAndSellToken, InsufficientValidTo and SellAmountOverflow', async () => {
    const cases: Array<[object, string]> = [
      [{ sellAmount: 0n }, 'ZeroAmount'],
      [{ buyAmount: 0n }, 'ZeroAmount'],
      [{ buyToken: SELL_TOKEN.toUpperCase().replace('0X', '0x') }, 'SameBuyAndSellToken'],
      [{ validTo: NOW + 59 }, 'InsufficientValidTo'],
      [{ validTo: NOW - 1 }, 'InsufficientValidTo'],
      [{ sellAmount: UINT256_MAX, feeAmount: 1n }, 'SellAmountOverflow'],
    ];
    for (const [change, errorType] of cases) {
      const { body } = await signed(() => {}, { ...PARAMS, ...change });
      assertRefused(() => validateOrderCreation(body, CONTEXT), 400, errorType);
    }
    const { body } = await signed(() => {}, { ...PARAMS, validTo: NOW + 60 });
    assert.equal(validateOrderCreation(body, CONTEXT).validTo, NOW + 60);
    const refused = assertRefused(() => validateOrderCreation({ ...body, validTo: NOW + 59 }, CONTEXT), 400, 'InsufficientValidTo');
    assert.match(refused.description, new RegExp(String(NOW + 60)));
  });

  it('refuses InvalidSignature for a signature that recovers no signer', async () => {
    for (const signature of ['0x' + '00'.repeat(65), '0x1234', '0x']) {
      const { body } = await signed((b) => (b.signature = signature));
      assertRefused(() => validateOrderCreation(body, CONTEXT), 400, 'InvalidSignature');
    }
  });

  it('refuses WrongOwner when from is not the signer, and when a signed field was changed', async () => {
    const { body } = await signed((b) => (b.from = bob.address));
    assertRefused(() => validateOrderCreation(body, CONTEXT), 400, 'WrongOwner', new RegExp(alice.address.toLowerCase()));
    // A changed field makes the signature recover someone else: with from, that is WrongOwner ...
    const tampered = await signed((b) => {
      b.buyAmount = '899';
      b.from = alice.address;
    });
    assertRefused(() => validateOrderCreation(tampered.body, CONTEXT), 400, 'WrongOwner');
    // ... and without from, the order is not alice's (nor has her UID).
    const anonymous = await signed((b) => (b.buyAmount = '899'));
    const order = validateOrderCreation(anonymous.body, CONTEXT);
    assert.notEqual(order.owner, alice.address.toLowerCase());
  });

  it('takes the owner of an eip1271 order from from, and refuses MissingFrom without it', async () => {
    const contract = '0x' + 'c0'.repeat(20);
    const { body } = await signed((b) => {
      b.signingScheme = 'eip1271';
      b.signature = '0xc0ffee';
    });
    assertRefused(() => validateOrderCreation(body, CONTEXT), 400, 'MissingFrom');
    const order = validateOrderCreation({ ...body, from: contract }, CONTEXT);
    assert.equal(order.owner, contract);
    assert.equal(order.signature, '0xc0ffee');
    assert.equal(unpackOrderUid(order.uid).owner, contract);
  });

  it('takes the owner of a presign order from its signature (or from), refusing a mismatch', async () => {
    const owner = alice.address;
    const { body } = await signed((b) => {
      b.signingScheme = 'presign';
      b.signature = owner;
    });
    const order = validateOrderCreation(body, CONTEXT);
    assert.equal(order.owner, owner.toLowerCase());
    assert.equal(order.signature, owner.toLowerCase());
    assert.equal(validateOrderCreation({ ...body, from: owner }, CONTEXT).uid, order.uid);
    assertRefused(() => validateOrderCreation({ ...body, from: bob.address }, CONTEXT), 400, 'WrongOwner');
    // An empty signature with from, as current CoW clients send, is the same order.
    const empty = validateOrderCreation({ ...body, signature: '0x', from: owner }, CONTEXT);
    assert.equal(empty.uid, order.uid);
    assert.equal(empty.signature, owner.toLowerCase());
    assertRefused(() => validateOrderCreation({ ...body, signature: '0x' }, CONTEXT), 400, 'MissingFrom');
    assertRefused(() => validateOrderCreation({ ...body, signature: '0x1234' }, CONTEXT), 400, 'InvalidSignature');
  });

  it('normalises v of an ECDSA signature to 27/28 in the validated order', async () => {
    const { body } = await signed();
    const v = parseInt(body.signature.slice(-2), 16);
    const raw = body.signature.slice(0, -2) + (v - 27).toString(16).padStart(2, '0');
    const order = validateOrderCreation({ ...body, signature: raw }, CONTEXT);
    assert.equal(order.signature, body.signature.toLowerCase());
  });
});

describe('orderbook fee and balance rules', () => {
  async function validated(params = {}, scheme: 'eip712' | 'presign' = 'eip712'): Promise<ValidatedOrder> {
    const { body } = await signOrder(alice, DOMAIN, { ...PARAMS, ...params });
    if (scheme === 'presign') {
      body.signingScheme = 'presign';
      body.signature = alice.address;
    }
    return validateOrderCreation(body, CONTEXT);
  }

  it('requires the minimal fee, or the fee ratio of the sell amount when more', async () => {
    assert.equal(requiredFee(1000n, 10n), 10n);
    assert.equal(requiredFee(1000n, 10n, 200), 20n);
    assert.equal(requiredFee(1000n, 30n, 200), 30n);
    const order = await validated({ feeAmount: 10n });
    checkFee(order, 10n);
    assertRefused(() => checkFee(order, 11n), 400, 'InsufficientFee', /feeAmount 10 .* 11/);
    assertRefused(() => checkFee(order, 0n, 110), 400, 'InsufficientFee'); // 1.1% of 1000 is 11
  });

  it("holds only a non-zero feeAmount to the minimal fee (today's feeAmount 0 takes the fee in the price)", () => {
    assert.equal(paysSignedFee({ feeAmount: 0n }), false);
    assert.equal(paysSignedFee({ feeAmount: 1n }), true);
  });

  it('requires sellAmount + feeAmount for fill-or-kill, anything for partially fillable, nothing for presign', async () => {
    const fillOrKill = await validated();
    checkBalance(fillOrKill, 1010n);
    assertRefused(() => checkBalance(fillOrKill, 1009n), 400, 'InsufficientBalance', /1009 .* 1010/);
    const partial = await validated({ partiallyFillable: true });
    checkBalance(partial, 1n);
    assertRefused(() => checkBalance(partial, 0n), 400, 'InsufficientBalance');
    checkBalance(await validated({}, 'presign'), 0n);
  });

  it("tells a short allowance from a short balance as CoW's order book does: the balance first", async () => {
    const fillOrKill = await validated(); // needs 1010
    checkBalance(fillOrKill, 1010n, { balance: 5000n, allowance: 1010n });
    assertRefused(() => checkBalance(fillOrKill, 1009n, { balance: 5000n, allowance: 1009n }), 400, 'InsufficientAllowance', /allows the vault relayer 1009 .* 1010/);
    assertRefused(() => checkBalance(fillOrKill, 1009n, { balance: 1009n, allowance: 5000n }), 400, 'InsufficientBalance');
    assertRefused(() => checkBalance(fillOrKill, 0n, { balance: 0n, allowance: 0n }), 400, 'InsufficientBalance');
    // Funds of another read than the amount (it funded the order there) say nothing: the amount decides.
    assertRefused(() => checkBalance(fillOrKill, 1009n, { balance: 5000n, allowance: 5000n }), 400, 'InsufficientBalance');
    const partial = await validated({ partiallyFillable: true });
    assertRefused(() => checkBalance(partial, 0n, { balance: 7n, allowance: 0n }), 400, 'InsufficientAllowance');
  });

  it('applies the fill rule: sell orders by executedSellAmountBeforeFees, buy orders by executedBuyAmount', () => {
    const sell = { kind: 'sell' as const, sellAmount: 100n, buyAmount: 50n };
    assert.equal(isFullyExecuted(sell, { sellAmountBeforeFees: 99n, buyAmount: 1000n }), false);
    assert.equal(isFullyExecuted(sell, { sellAmountBeforeFees: 100n, buyAmount: 0n }), true);
    const buy = { ...sell, kind: 'buy' as const };
    assert.equal(isFullyExecuted(buy, { sellAmountBeforeFees: 1000n, buyAmount: 49n }), false);
    assert.equal(isFullyExecuted(buy, { sellAmountBeforeFees: 0n, buyAmount: 51n }), true);
  });
});

describe('orderbook UIDs and cancellations', () => {
  it('parses UIDs, refusing InvalidOrderUid', () => {
    assert.equal(parseOrderUid(VECTOR_UID.toUpperCase().replace('0X', '0x')), VECTOR_UID);
    for (const bad of ['', '0x', 'hello', VECTOR_UID.slice(0, -1), VECTOR_UID + 'ff']) {
      assertRefused(() => parseOrderUid(bad), 400, 'InvalidOrderUid');
    }
  });

  it('recovers the signer of a cancellation signed with ethers (eip712 and ethsign)', async () => {
    for (const scheme of ['eip712', 'ethsign'] as const) {
      const body = await signCancellation(alice, DOMAIN, VECTOR_UID, scheme);
      const cancellation = verifyCancellation(body, SEPARATOR, VECTOR_UID);
      assert.equal(cancellation.signer, alice.address.toLowerCase());
      assert.equal(cancellation.signingScheme, scheme);
      // Signed for another order, it is someone else's.
      const other = verifyCancellation(body, SEPARATOR, VECTOR_UID.replace('0e45', '0e46'));
      assert.notEqual(other.signer, alice.address.toLowerCase());
    }
  });

  it('refuses a malformed cancellation body', async () => {
    const body = await signCancellation(alice, DOMAIN, VECTOR_UID);
    assertRefused(() => verifyCancellation({ signature: body.signature }, SEPARATOR, VECTOR_UID), 400, 'MissingOrderData');
    assertRefused(() => verifyCancellation({ ...body, signingScheme: 'eip1271' }, SEPARATOR, VECTOR_UID), 400, 'InvalidOrderData');
    assertRefused(() => verifyCancellation({ ...body, signature: '0x1234' }, SEPARATOR, VECTOR_UID), 400, 'InvalidOrderData');
    assertRefused(
      () => verifyCancellation({ ...body, signature: '0x' + '00'.repeat(64) + '1b' }, SEPARATOR, VECTOR_UID),
      400,
      'InvalidSignature',
    );
  });

  it('has the documented status for every error factory', () => {
    const statuses: Record<string, number> = {
      OrderNotFound: statusOf(orderbookErrors.orderNotFound()),
      NotFound: statusOf(orderbookErrors.notFound('token')),
      WrongOwner: statusOf(orderbookErrors.cancellationWrongOwner()),
      TooManyRequests: statusOf(orderbookErrors.tooManyRequests('slow down')),
      InternalServerError: statusOf(orderbookErrors.internal()),
      DuplicatedOrder: statusOf(orderbookErrors.duplicatedOrder()),
    };
    assert.deepEqual(statuses, {
      OrderNotFound: 404,
      NotFound: 404,
      WrongOwner: 401,
      TooManyRequests: 429,
      InternalServerError: 500,
      DuplicatedOrder: 400,
    });
  });
});
