/**
 * The deciders as given-events / when-command / then-events specifications (test/support/decider-spec.ts):
 * the order decider's CreateOrder (every refusal of a valid order, from the facts it is given), CancelOrder
 * and the chain facts, the app data decider, and the order state the events fold into.
 */
import assert from 'node:assert/strict';
import { Wallet } from 'ethers';
import { validator } from '../../../src/shared/schemas.js';
import { commandStreamId, orderDecider, type OrderCommand } from '../../../src/orderbook/write/decider.js';
import {
  ORDER_EVENT_TYPES,
  checkOrderEvent,
  parseOrderEvent,
  type ChainEventRef,
  type OrderEvent,
} from '../../../src/orderbook/write/events.js';
import { evolve, foldOrderEvents, initialState, isInvalidated, status, type OrderState } from '../../../src/orderbook/write/order-state.js';
import { presentOrder } from '../../../src/orderbook/api/present-order.js';
import type { CreateOrder, OrderFacts } from '../../../src/orderbook/write/create-order.js';
import { appDataDecider } from '../../../src/orderbook/write/register-app-data.js';
import { appDataRegistered } from '../../../src/orderbook/write/book-events.js';
import { verifyCancellation } from '../../../src/orderbook/domain/cancellation.js';
import { domainSeparator, gpv2Domain } from '../../../src/orderbook/domain/eip712.js';
import { validateOrderCreation, type ValidatedOrder } from '../../../src/orderbook/domain/order.js';
import type { StoredQuote } from '../../../src/orderbook/store/quote-store.js';
import { signCancellation, signOrder, type OrderParams } from '../../support/orders.js';
import { DEV_KEYS } from '../../support/vectors.js';
import { deciderSpec } from '../../support/decider-spec.js';
import { docOf, stateOf } from '../../../src/orderbook/read/projections/orders.js';

const DOMAIN = gpv2Domain(1, '0x9008D19f58AAbD9eD0D60971565AA8510560ab41');
const SEPARATOR = domainSeparator(DOMAIN);
const NOW = 1_800_000_000;
const SETTLEMENT = '0x9008d19f58aabd9ed0d60971565aa8510560ab41';
const VALID_TO = NOW + 3600;
const alice = new Wallet(DEV_KEYS[1]);
const bob = new Wallet(DEV_KEYS[2]);
const SELL_TOKEN = '0x' + 'a1'.repeat(20);
const BUY_TOKEN = '0x' + 'b2'.repeat(20);
const RULES = { maxMarketSeconds: 3 * 3600, maxLimitSeconds: 365 * 86400, feeRatioBps: 0 };
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

const spec = deciderSpec(orderDecider);

type Scheme = 'eip712' | 'ethsign' | 'presign' | 'eip1271';

async function validated(params: Partial<OrderParams> = {}, scheme: Scheme = 'eip712'): Promise<ValidatedOrder> {
  const full = { sellToken: SELL_TOKEN, buyToken: BUY_TOKEN, sellAmount: 1000n, buyAmount: 500n, feeAmount: 10n, validTo: VALID_TO, ...params };
  const { body } = await signOrder(alice, DOMAIN, full, scheme === 'ethsign' ? { scheme: 'ethsign' } : undefined);
  if (scheme === 'presign') {
    body.signingScheme = 'presign';
    body.signature = alice.address;
  } else if (scheme === 'eip1271') {
    body.signingScheme = 'eip1271';
    body.signature = '0xc0ffee';
    body.from = alice.address;
  }
  return validateOrderCreation(body, { domainSeparator: SEPARATOR, now: NOW, minValidToSeconds: 0 });
}

/** The facts that let `order` in: funded, no minimal fee, a valid EIP-1271 signature (each only where needed). */
function passingFacts(order: ValidatedOrder): OrderFacts {
  return {
    ...(order.signingScheme === 'eip1271' ? { eip1271Valid: true } : {}),
    ...(order.feeAmount !== 0n ? { minimalFee: null } : {}),
    ...(order.signingScheme !== 'presign' ? { spendable: order.sellAmount + order.feeAmount } : {}),
  };
}

function create(order: ValidatedOrder, data: Partial<CreateOrder['data']> = {}, facts: Partial<OrderFacts> = {}): OrderCommand {
  return {
    type: 'CreateOrder',
    data: { order, creationDate: iso(NOW - 10), now: NOW, rules: RULES, fullAppData: null, ...data, facts: { ...passingFacts(order), ...facts } },
  };
}

/** OrderCreated as the log holds it for `order` created at NOW - 10. */
function orderCreated(order: ValidatedOrder, extras: Record<string, unknown> = {}): OrderEvent {
  return {
    type: 'OrderCreated',
    schemaVersion: 1,
    data: {
      uid: order.uid,
      owner: order.owner,
      creationDate: iso(NOW - 10),
      sellToken: order.sellToken,
      buyToken: order.buyToken,
      receiver: order.receiver,
      sellAmount: order.sellAmount.toString(),
      buyAmount: order.buyAmount.toString(),
      validTo: order.validTo,
      appData: order.appData,
      feeAmount: order.feeAmount.toString(),
      kind: order.kind,
      partiallyFillable: order.partiallyFillable,
      sellTokenBalance: order.sellTokenBalance,
      buyTokenBalance: order.buyTokenBalance,
      signingScheme: order.signingScheme,
      signature: order.signature,
      ...extras,
    },
  } as OrderEvent;
}

let logCounter = 0;
function chain(blockNumber: number, logIndex = 0, blockHash?: string): ChainEventRef {
  logCounter++;
  return {
    blockNumber,
    blockHash: blockHash ?? '0x' + blockNumber.toString(16).padStart(64, 'b'),
    logIndex,
    transactionHash: '0x' + logCounter.toString(16).padStart(64, 'e'),
  };
}

function trade(order: Pick<ValidatedOrder, 'uid' | 'owner' | 'sellToken' | 'buyToken'>, at: ChainEventRef, sellAmount: bigint, buyAmount: bigint, feeAmount: bigint): OrderCommand {
  return {
    type: 'RecordTrade',
    data: { uid: order.uid, chain: at, owner: order.owner, sellToken: order.sellToken, buyToken: order.buyToken, sellAmount, buyAmount, feeAmount },
  };
}

function tradeRecorded(order: Pick<ValidatedOrder, 'uid' | 'owner' | 'sellToken' | 'buyToken'>, at: ChainEventRef, sell: bigint, buy: bigint, fee: bigint): OrderEvent {
  return {
    type: 'TradeRecorded',
    schemaVersion: 1,
    data: {
      uid: order.uid,
      chain: at,
      owner: order.owner.toLowerCase(),
      sellToken: order.sellToken,
      buyToken: order.buyToken,
      sellAmount: sell.toString(),
      buyAmount: buy.toString(),
      feeAmount: fee.toString(),
      sellAmountBeforeFees: (sell - fee).toString(),
    },
  };
}

const fact = (type: 'OrderInvalidated' | 'OrderPresigned' | 'PresignatureRevoked', uid: string, at: ChainEventRef): OrderEvent =>
  ({ type, schemaVersion: 1, data: { uid, chain: at } }) as OrderEvent;

const reverted = (uid: string, at: ChainEventRef, what: string): OrderEvent =>
  ({ type: 'ChainEventReverted', schemaVersion: 1, data: { uid, chain: at, reverted: what } }) as OrderEvent;

async function cancel(order: ValidatedOrder, signer: Wallet, at = NOW, scheme: 'eip712' | 'ethsign' = 'eip712', bulk = false): Promise<OrderCommand> {
  const body = await signCancellation(signer, DOMAIN, order.uid, scheme);
  const cancellation = verifyCancellation(body, SEPARATOR, order.uid);
  return { type: 'CancelOrder', data: { uid: order.uid, cancellation, cancelledAt: iso(at), ...(bulk ? { bulk } : {}) } };
}

function cancelledBy(command: OrderCommand): OrderEvent {
  assert.equal(command.type, 'CancelOrder');
  const { uid, cancellation, cancelledAt, bulk } = (command as Extract<OrderCommand, { type: 'CancelOrder' }>).data;
  return {
    type: 'OrderCancelled',
    schemaVersion: 1,
    data: { uid, cancelledAt, signingScheme: cancellation.signingScheme, signature: cancellation.signature, ...(bulk ? { bulk } : {}) },
  } as OrderEvent;
}

function storedQuote(overrides: Partial<StoredQuote> = {}): StoredQuote {
  return {
    id: 7,
    sellToken: SELL_TOKEN,
    buyToken: BUY_TOKEN,
    receiver: null,
    sellAmount: '1000',
    buyAmount: '600',
    feeAmount: '3',
    validTo: VALID_TO,
    appData: '0x' + '00'.repeat(32),
    fullAppData: null,
    kind: 'sell',
    partiallyFillable: false,
    sellTokenBalance: 'erc20',
    buyTokenBalance: 'erc20',
    signingScheme: 'eip712',
    from: alice.address.toLowerCase(),
    priceQuality: 'verified',
    gasAmount: '150000',
    gasPrice: '1000000000',
    sellTokenPrice: '0.5',
    expiration: iso(NOW + 60),
    quotedAt: iso(NOW - 60),
    ...overrides,
  };
}

describe('order decider: CreateOrder', () => {
  it('creates an order from no events: OrderCreated with the wire fields', async () => {
    const order = await validated();
    const { state } = spec.given([]).when(create(order)).then([
      {
        type: 'OrderCreated',
        schemaVersion: 1,
        data: {
          uid: order.uid,
          owner: alice.address.toLowerCase(),
          creationDate: iso(NOW - 10),
          sellToken: SELL_TOKEN,
          buyToken: BUY_TOKEN,
          receiver: null,
          sellAmount: '1000',
          buyAmount: '500',
          validTo: VALID_TO,
          appData: '0x' + '00'.repeat(32),
          feeAmount: '10',
          kind: 'sell',
          partiallyFillable: false,
          sellTokenBalance: 'erc20',
          buyTokenBalance: 'erc20',
          signingScheme: 'eip712',
          signature: order.signature,
        },
      },
    ]);
    assert.equal(status(state, NOW), 'open');
    assert.equal(commandStreamId(create(order)), `order-${order.uid}`);
  });

  it('refuses a second creation: DuplicatedOrder', async () => {
    const order = await validated();
    spec.given([orderCreated(order)]).when(create(order)).then({ errorType: 'DuplicatedOrder', status: 400 });
  });

  it('records the app data document the order names', async () => {
    const order = await validated();
    spec.given([]).when(create(order, { fullAppData: '{}' })).then([orderCreated(order, { fullAppData: '{}' })]);
  });

  it('refuses a quote id the quote store does not hold (QuoteNotFound) and a quote of another pair or kind (InvalidQuote)', async () => {
    const order = await validated();
    spec.given([]).when(create(order, {}, { quote: { id: 7, found: null } })).then({ errorType: 'QuoteNotFound', status: 400 });
    for (const other of [{ buyToken: '0x' + 'c3'.repeat(20) }, { sellToken: '0x' + 'c3'.repeat(20) }, { kind: 'buy' as const }]) {
      spec.given([]).when(create(order, {}, { quote: { id: 7, found: storedQuote(other) } })).then({ errorType: 'InvalidQuote', status: 400 });
    }
  });

  it('records the quote an order names, and its class: market within the quote, else limit', async () => {
    const order = await validated();
    const quoteOf = (q: StoredQuote) => ({
      gasAmount: q.gasAmount,
      gasPrice: q.gasPrice,
      sellTokenPrice: q.sellTokenPrice,
      sellAmount: q.sellAmount,
      buyAmount: q.buyAmount,
      feeAmount: q.feeAmount,
      solver: '0x' + '00'.repeat(20),
      verified: false,
    });
    // 500 for 1010 is within 600 for 1000: market.
    const within = storedQuote();
    spec.given([]).when(create(order, {}, { quote: { id: 7, found: within } })).then([orderCreated(order, { quoteId: 7, quote: quoteOf(within), class: 'market' })]);
    const beyond = storedQuote({ buyAmount: '400' });
    spec.given([]).when(create(order, {}, { quote: { id: 7, found: beyond } })).then([orderCreated(order, { quoteId: 7, quote: quoteOf(beyond), class: 'limit' })]);
  });

  it('caps validTo by class (ExcessiveValidTo), never for presigned orders', async () => {
    const farMarket = await validated({ validTo: NOW + RULES.maxMarketSeconds + 1 });
    spec.given([]).when(create(farMarket, {}, { quote: { id: 7, found: storedQuote() } })).then({ errorType: 'ExcessiveValidTo', status: 400 });
    // Without a quote the same order is a limit order, valid up to a year.
    spec.given([]).when(create(farMarket)).then([orderCreated(farMarket)]);
    const farLimit = await validated({ validTo: NOW + RULES.maxLimitSeconds + 1 });
    spec.given([]).when(create(farLimit)).then({ errorType: 'ExcessiveValidTo', status: 400 });
    const presigned = await validated({ validTo: NOW + RULES.maxLimitSeconds + 1 }, 'presign');
    spec.given([]).when(create(presigned)).then([orderCreated(presigned)]);
  });

  it('refuses an eip1271 order its owner contract does not sign: InvalidEip1271Signature', async () => {
    const order = await validated({}, 'eip1271');
    spec.given([]).when(create(order, {}, { eip1271Valid: false })).then({ errorType: 'InvalidEip1271Signature', status: 400 });
    spec.given([]).when(create(order)).then([orderCreated(order)]);
  });

  it('holds a non-zero feeAmount to the minimal fee and the fee ratio (InsufficientFee), a zero one to nothing', async () => {
    const order = await validated({ feeAmount: 10n });
    spec.given([]).when(create(order, {}, { minimalFee: 11n })).then({ errorType: 'InsufficientFee', status: 400 });
    spec.given([]).when(create(order, {}, { minimalFee: 10n })).then([orderCreated(order)]);
    // 2% of 1000 is 20.
    spec.given([]).when(create(order, { rules: { ...RULES, feeRatioBps: 200 } }, { minimalFee: 1n })).then({ errorType: 'InsufficientFee' });
    const free = await validated({ feeAmount: 0n });
    spec.given([]).when(create(free, {}, { spendable: 1000n })).then([orderCreated(free)]);
  });

  it('refuses an order the owner cannot fund (InsufficientBalance), but not a presigned one', async () => {
    const order = await validated();
    spec.given([]).when(create(order, {}, { spendable: 1009n })).then({ errorType: 'InsufficientBalance', status: 400 });
    spec.given([]).when(create(order, {}, { spendable: 1010n })).then([orderCreated(order)]);
    const partial = await validated({ partiallyFillable: true });
    spec.given([]).when(create(partial, {}, { spendable: 1n })).then([orderCreated(partial)]);
    spec.given([]).when(create(partial, {}, { spendable: 0n })).then({ errorType: 'InsufficientBalance' });
    const presigned = await validated({}, 'presign');
    spec.given([]).when(create(presigned)).then([orderCreated(presigned)]);
  });

  it('refuses InsufficientAllowance when the balance read with the amount funds the order and the allowance does not', async () => {
    const order = await validated(); // needs 1010
    spec.given([]).when(create(order, {}, { spendable: 1009n, funds: { balance: 5000n, allowance: 1009n } })).then({ errorType: 'InsufficientAllowance', status: 400 });
    spec.given([]).when(create(order, {}, { spendable: 1009n, funds: { balance: 1009n, allowance: 5000n } })).then({ errorType: 'InsufficientBalance' });
    spec.given([]).when(create(order, {}, { spendable: 1010n, funds: { balance: 5000n, allowance: 1010n } })).then([orderCreated(order)]);
  });

  it("refuses in CoW's order: the quote, the cap, the signature, the fee, the balance, then the duplicate", async () => {
    const order = await validated({ validTo: NOW + RULES.maxMarketSeconds + 1 }, 'eip1271');
    const all = { quote: { id: 7, found: storedQuote({ kind: 'buy' as const }) }, eip1271Valid: false, minimalFee: 100n, spendable: 0n };
    const existing = [orderCreated(order)];
    spec.given(existing).when(create(order, {}, all)).then({ errorType: 'InvalidQuote' });
    spec.given(existing).when(create(order, {}, { ...all, quote: { id: 7, found: storedQuote() } })).then({ errorType: 'ExcessiveValidTo' });
    spec.given(existing).when(create(order, {}, { ...all, quote: undefined })).then({ errorType: 'InvalidEip1271Signature' });
    spec.given(existing).when(create(order, {}, { ...all, quote: undefined, eip1271Valid: true })).then({ errorType: 'InsufficientFee' });
    spec.given(existing).when(create(order, {}, { ...all, quote: undefined, eip1271Valid: true, minimalFee: null })).then({ errorType: 'InsufficientBalance' });
    spec.given(existing).when(create(order, {}, { eip1271Valid: true, minimalFee: null, spendable: 1010n })).then({ errorType: 'DuplicatedOrder' });
  });

  it('will not decide without a fact the order needs', async () => {
    const order = await validated({}, 'eip1271');
    const command = create(order) as CreateOrder;
    delete command.data.facts.eip1271Valid;
    assert.throws(() => orderDecider.decide(command, initialState()), /needs the fact eip1271Valid/);
    const funded = create(await validated()) as CreateOrder;
    delete funded.data.facts.spendable;
    assert.throws(() => orderDecider.decide(funded, initialState()), /needs the fact spendable/);
  });
});

describe('order decider: CancelOrder', () => {
  it('cancels an open order signed by its owner (eip712 and ethsign cancellations), once', async () => {
    for (const scheme of ['eip712', 'ethsign'] as const) {
      const order = await validated({}, scheme);
      const command = await cancel(order, alice, NOW + 5, scheme);
      const { events, state } = spec.given([orderCreated(order)]).when(command).then([cancelledBy(command)]);
      assert.deepEqual(Object.keys(events[0].data).sort(), ['cancelledAt', 'signature', 'signingScheme', 'uid']);
      assert.equal(status(state, NOW), 'cancelled');
      assert.equal(isInvalidated(state), true);
      spec.given([orderCreated(order), ...events]).when(await cancel(order, alice, NOW + 6, scheme)).then({ errorType: 'AlreadyCancelled', status: 400 });
    }
  });

  it('marks a cancellation of a bulk request', async () => {
    const order = await validated();
    const command = await cancel(order, alice, NOW, 'eip712', true);
    spec.given([orderCreated(order)]).when(command).then([cancelledBy(command)]);
    assert.equal((cancelledBy(command).data as { bulk?: boolean }).bulk, true);
  });

  it('refuses a cancellation signed by someone else: 401 WrongOwner', async () => {
    const order = await validated();
    spec.given([orderCreated(order)]).when(await cancel(order, bob)).then({ errorType: 'WrongOwner', status: 401 });
  });

  it('refuses OrderNotFound, OrderFullyExecuted, OrderExpired and OnChainOrder', async () => {
    const order = await validated();
    spec.given([]).when(await cancel(order, alice)).then({ errorType: 'OrderNotFound', status: 404 });
    spec.given([orderCreated(order), tradeRecorded(order, chain(10), 1010n, 500n, 10n)]).when(await cancel(order, alice)).then({ errorType: 'OrderFullyExecuted', status: 400 });
    spec.given([orderCreated(order)]).when(await cancel(order, alice, VALID_TO + 1)).then({ errorType: 'OrderExpired', status: 400 });
    // At validTo itself the order is still valid.
    const atValidTo = await cancel(order, alice, VALID_TO);
    spec.given([orderCreated(order)]).when(atValidTo).then([cancelledBy(atValidTo)]);

    const presigned = await validated({}, 'presign');
    spec.given([orderCreated(presigned)]).when(await cancel(presigned, alice)).then({ errorType: 'OnChainOrder', status: 400 });
    spec.given([orderCreated(presigned), fact('OrderPresigned', presigned.uid, chain(11))]).when(await cancel(presigned, alice)).then({ errorType: 'OnChainOrder' });
    const eip1271 = await validated({}, 'eip1271');
    spec.given([orderCreated(eip1271)]).when(await cancel(eip1271, alice)).then({ errorType: 'OnChainOrder' });
  });

  it('treats an on-chain invalidation as cancelled for a later cancellation', async () => {
    const order = await validated();
    spec.given([orderCreated(order), fact('OrderInvalidated', order.uid, chain(12))]).when(await cancel(order, alice)).then({ errorType: 'AlreadyCancelled' });
  });
});

describe('order decider: chain facts', () => {
  it('records a trade once per (blockHash, logIndex), and sums the executed amounts', async () => {
    const order = await validated({ partiallyFillable: true });
    const first = chain(20, 3);
    const recorded = tradeRecorded(order, first, 505n, 250n, 5n);
    spec.given([orderCreated(order)]).when(trade(order, first, 505n, 250n, 5n)).then([recorded]);
    // The indexer delivers the same log again, in any case: nothing.
    const sameLog = { ...first, blockHash: first.blockHash.toUpperCase().replace('0X', '0x') };
    spec.given([orderCreated(order), recorded]).when(trade(order, sameLog, 505n, 250n, 5n)).then([]);
    // Same block, other log: another trade.
    const other = chain(20, 4, first.blockHash);
    const { state } = spec.given([orderCreated(order), recorded]).when(trade(order, other, 100n, 50n, 1n)).then([tradeRecorded(order, other, 100n, 50n, 1n)]);
    assert.deepEqual(state.executed, { sellAmount: 605n, sellAmountBeforeFees: 599n, buyAmount: 300n, feeAmount: 6n });
    assert.deepEqual(state.trades.map((t) => t.chain.logIndex), [3, 4]);
  });

  it('records nothing before fees for a Trade log whose fee exceeds its sell amount', async () => {
    const order = await validated();
    const at = chain(21);
    const event = tradeRecorded(order, at, 5n, 1n, 9n);
    spec.given([orderCreated(order)]).when(trade(order, at, 5n, 1n, 9n)).then([{ ...event, data: { ...event.data, sellAmountBeforeFees: '0' } } as OrderEvent]);
  });

  it('applies the fill rule to sell orders, and keeps a half-filled partially fillable order open', async () => {
    const order = await validated({ partiallyFillable: true });
    const [firstAt, secondAt] = [chain(30), chain(31)];
    const { state: half } = spec.given([orderCreated(order)]).when(trade(order, firstAt, 505n, 260n, 5n)).then([tradeRecorded(order, firstAt, 505n, 260n, 5n)]);
    assert.equal(half.fullyExecuted, false);
    assert.equal(status(half, NOW), 'open');
    const view = presentOrder(half, NOW, SETTLEMENT, 123n);
    assert.ok(view);
    assert.deepEqual(
      [view.executedSellAmount, view.executedSellAmountBeforeFees, view.executedBuyAmount, view.executedFeeAmount, view.availableBalance],
      ['505', '500', '260', '5', '123'],
    );
    assert.ok(validator('orderbook/order.schema.json')(view), 'the view is a valid wire Order');
    // The second half: sellAmountBeforeFees reaches sellAmount exactly (more buy amount does not matter).
    const { state: full } = spec
      .given([orderCreated(order), tradeRecorded(order, firstAt, 505n, 260n, 5n)])
      .when(trade(order, secondAt, 505n, 300n, 5n))
      .then([tradeRecorded(order, secondAt, 505n, 300n, 5n)]);
    assert.equal(full.fullyExecuted, true);
    assert.equal(status(full, NOW), 'fulfilled');
    assert.equal(status(full, VALID_TO + 100), 'fulfilled', 'fulfilled wins over expired');
  });

  it('applies the fill rule to buy orders by executedBuyAmount', async () => {
    const order = await validated({ kind: 'buy', partiallyFillable: true, sellAmount: 1000n, buyAmount: 500n });
    const first = tradeRecorded(order, chain(40), 1010n, 499n, 10n);
    assert.equal(status(foldOrderEvents([orderCreated(order), first]), NOW), 'open', 'all the sell amount but not all the buy amount');
    const at = chain(41);
    const { state } = spec.given([orderCreated(order), first]).when(trade(order, at, 3n, 1n, 0n)).then([tradeRecorded(order, at, 3n, 1n, 0n)]);
    assert.equal(status(state, NOW), 'fulfilled');
  });

  it('records trades and invalidations for an order this book never saw', () => {
    const stranger = { uid: '0x' + 'dd'.repeat(56), owner: '0x' + 'EE'.repeat(20), sellToken: SELL_TOKEN, buyToken: BUY_TOKEN };
    const [tradeAt, invalidAt] = [chain(50), chain(51)];
    const traded = tradeRecorded(stranger, tradeAt, 100n, 90n, 1n);
    spec.given([]).when(trade(stranger, tradeAt, 100n, 90n, 1n)).then([traded]);
    const { state } = spec
      .given([traded])
      .when({ type: 'InvalidateOrder', data: { uid: stranger.uid, chain: invalidAt } })
      .then([fact('OrderInvalidated', stranger.uid, invalidAt)]);
    assert.equal(state.order, null);
    assert.equal(state.trades.length, 1);
    assert.equal(state.trades[0].owner, '0x' + 'ee'.repeat(20));
    assert.equal(state.invalidatedOnChain, true);
    assert.equal(state.fullyExecuted, false);
    assert.equal(status(state, NOW), null);
    assert.equal(presentOrder(state, NOW, SETTLEMENT), null);
  });

  it('invalidates once per log, and a revert of the only invalidation opens the order again', async () => {
    const order = await validated();
    const at = chain(60, 1);
    const invalidated = fact('OrderInvalidated', order.uid, at);
    const invalidate: OrderCommand = { type: 'InvalidateOrder', data: { uid: order.uid, chain: at } };
    const revert: OrderCommand = { type: 'RevertChainEvent', data: { uid: order.uid, blockHash: at.blockHash.toUpperCase().replace('0X', '0x'), logIndex: 1 } };
    const { state } = spec.given([orderCreated(order)]).when(invalidate).then([invalidated]);
    assert.equal(status(state, NOW), 'cancelled');
    assert.equal(presentOrder(state, NOW, SETTLEMENT)?.invalidated, true);
    spec.given([orderCreated(order), invalidated]).when(invalidate).then([]);
    const undone = reverted(order.uid, at, 'OrderInvalidated');
    const { state: reopened } = spec.given([orderCreated(order), invalidated]).when(revert).then([undone]);
    assert.equal(status(reopened, NOW), 'open');
    // Reverting it again, or a log the stream never had, appends nothing.
    spec.given([orderCreated(order), invalidated, undone]).when(revert).then([]);
    spec.given([orderCreated(order), invalidated]).when({ type: 'RevertChainEvent', data: { uid: order.uid, blockHash: at.blockHash, logIndex: 2 } }).then([]);
    // The chain reorganises back: the same log is recorded again and counts again.
    const { state: again } = spec.given([orderCreated(order), invalidated, undone]).when(invalidate).then([invalidated]);
    assert.equal(status(again, NOW), 'cancelled');
  });

  it('keeps an order invalidated while any invalidation stands', async () => {
    const order = await validated();
    const [first, second] = [chain(61), chain(62)];
    const { state } = spec
      .given([orderCreated(order), fact('OrderInvalidated', order.uid, first), fact('OrderInvalidated', order.uid, second)])
      .when({ type: 'RevertChainEvent', data: { uid: order.uid, blockHash: first.blockHash, logIndex: first.logIndex } })
      .then([reverted(order.uid, first, 'OrderInvalidated')]);
    assert.equal(status(state, NOW), 'cancelled');
  });

  it('reverts a trade: executed amounts and the fill rule follow', async () => {
    const order = await validated();
    const at = chain(70, 2);
    const traded = tradeRecorded(order, at, 1010n, 500n, 10n);
    assert.equal(status(foldOrderEvents([orderCreated(order), traded]), NOW), 'fulfilled');
    const { state } = spec
      .given([orderCreated(order), traded])
      .when({ type: 'RevertChainEvent', data: { uid: order.uid, blockHash: at.blockHash, logIndex: 2 } })
      .then([reverted(order.uid, at, 'TradeRecorded')]);
    assert.equal(status(state, NOW), 'open');
    assert.deepEqual(state.executed, { sellAmount: 0n, sellAmountBeforeFees: 0n, buyAmount: 0n, feeAmount: 0n });
    assert.deepEqual(state.trades, []);
    // The trade is mined again in another block.
    const again = chain(71, 0);
    const { state: mined } = spec
      .given([orderCreated(order), traded, reverted(order.uid, at, 'TradeRecorded')])
      .when(trade(order, again, 1010n, 500n, 10n))
      .then([tradeRecorded(order, again, 1010n, 500n, 10n)]);
    assert.equal(status(mined, NOW), 'fulfilled');
  });

  it('follows the latest standing PreSignature by (blockNumber, logIndex), whatever the arrival order', async () => {
    const order = await validated({}, 'presign');
    const signedAt = chain(80, 5);
    const revokedAt = chain(80, 6, signedAt.blockHash);
    const signed = fact('OrderPresigned', order.uid, signedAt);
    assert.equal(status(foldOrderEvents([orderCreated(order)]), NOW), 'presignaturePending');
    const { state } = spec.given([orderCreated(order)]).when({ type: 'SetPresignature', data: { uid: order.uid, chain: signedAt, signed: true } }).then([signed]);
    assert.equal(status(state, NOW), 'open');
    spec.given([orderCreated(order), signed]).when({ type: 'SetPresignature', data: { uid: order.uid, chain: signedAt, signed: true } }).then([]);
    // A revocation later in the same block.
    const revoked = fact('PresignatureRevoked', order.uid, revokedAt);
    const { state: pending } = spec
      .given([orderCreated(order), signed])
      .when({ type: 'SetPresignature', data: { uid: order.uid, chain: revokedAt, signed: false } })
      .then([revoked]);
    assert.equal(status(pending, NOW), 'presignaturePending');
    // An older signature arriving late does not override the newer revocation.
    const lateAt = chain(79, 0);
    const late = fact('OrderPresigned', order.uid, lateAt);
    const { state: stillPending } = spec
      .given([orderCreated(order), signed, revoked])
      .when({ type: 'SetPresignature', data: { uid: order.uid, chain: lateAt, signed: true } })
      .then([late]);
    assert.equal(status(stillPending, NOW), 'presignaturePending');
    // The revocation is reorganised away: the newest standing one signs.
    const { state: open } = spec
      .given([orderCreated(order), signed, revoked, late])
      .when({ type: 'RevertChainEvent', data: { uid: order.uid, blockHash: revokedAt.blockHash, logIndex: 6 } })
      .then([reverted(order.uid, revokedAt, 'PresignatureRevoked')]);
    assert.equal(status(open, NOW), 'open');
    assert.equal(status(open, VALID_TO + 1), 'expired');
  });

  it('ignores presignatures for the status of orders that are not presign', async () => {
    const order = await validated();
    const at = chain(90);
    const { state } = spec.given([orderCreated(order)]).when({ type: 'SetPresignature', data: { uid: order.uid, chain: at, signed: false } }).then([fact('PresignatureRevoked', order.uid, at)]);
    assert.equal(status(state, NOW), 'open');
  });
});

describe('app data decider: RegisterAppData', () => {
  const appSpec = deciderSpec(appDataDecider);
  const data = { hash: '0x' + '12'.repeat(32), fullAppData: '{"appCode":"test"}', registeredAt: iso(NOW) };

  it('registers a document once: AppDataRegistered, then nothing', () => {
    const { events, state } = appSpec.given([]).when({ type: 'RegisterAppData', data }).then([appDataRegistered(data)]);
    assert.equal(state.fullAppData, data.fullAppData);
    appSpec.given(events).when({ type: 'RegisterAppData', data: { ...data, registeredAt: iso(NOW + 1) } }).then([]);
  });

  it('reads back only AppDataRegistered at the version it knows', () => {
    assert.throws(() => appDataDecider.parse({ type: 'QuoteIssued', schemaVersion: 1, data: {} }), /unknown app data event/);
    assert.throws(() => appDataDecider.parse({ ...appDataRegistered(data), schemaVersion: 2 }), /unknown app data event/);
  });
});

describe('order state and status', () => {
  it('goes open → expired at validTo + 1', async () => {
    const state = foldOrderEvents([orderCreated(await validated())]);
    assert.deepEqual([VALID_TO - 1, VALID_TO, VALID_TO + 1].map((now) => status(state, now)), ['open', 'open', 'expired']);
  });

  it('says cancelled before expired, and expired before presignaturePending', async () => {
    const order = await validated({}, 'presign');
    assert.equal(status(foldOrderEvents([orderCreated(order)]), VALID_TO + 1), 'expired');
    assert.equal(status(foldOrderEvents([orderCreated(order), fact('OrderInvalidated', order.uid, chain(100))]), VALID_TO + 1), 'cancelled');
  });

  it('folds a stream the same way event by event and at once, and rebuilds it from the stored JSON', async () => {
    const order = await validated({ partiallyFillable: true });
    const events = [orderCreated(order), tradeRecorded(order, chain(110), 300n, 100n, 3n), fact('OrderInvalidated', order.uid, chain(111))];
    let state: OrderState = initialState();
    for (const event of events) state = evolve(state, event);
    assert.deepEqual(foldOrderEvents(events.map((e) => checkOrderEvent(JSON.parse(JSON.stringify(e))))), state);
    assert.equal(state.invalidatedOnChain, true);
    assert.equal(state.executed.sellAmount, 300n);
    // The signed amounts as numbers beside the stored strings, the same whichever way the state was made.
    for (const field of ['sellAmount', 'buyAmount', 'feeAmount'] as const) {
      assert.equal(typeof state.amounts![field], 'bigint');
      assert.equal(String(state.amounts![field]), state.order![field]);
    }
    assert.deepEqual(stateOf(docOf(state)), state, 'the read model document gives back the same state');
    // Each fold starts from a fresh, empty state: nothing one stream folded leaks into the next.
    assert.deepEqual(orderDecider.initialState(), {
      order: null,
      amounts: null,
      cancellation: null,
      chainFacts: [],
      invalidatedOnChain: false,
      presigned: false,
      trades: [],
      executed: { sellAmount: 0n, sellAmountBeforeFees: 0n, buyAmount: 0n, feeAmount: 0n },
      fullyExecuted: false,
    });
  });

  it('reads back only events it knows, at the version it knows, with valid data', () => {
    assert.deepEqual([...ORDER_EVENT_TYPES].sort(), [
      'ChainEventReverted',
      'OrderCancelled',
      'OrderCreated',
      'OrderInvalidated',
      'OrderPresigned',
      'PresignatureRevoked',
      'TradeRecorded',
    ]);
    const good = { type: 'OrderInvalidated', schemaVersion: 1, data: { uid: '0x' + 'aa'.repeat(56), chain: chain(1) } };
    assert.equal(checkOrderEvent(good).type, 'OrderInvalidated');
    assert.throws(() => checkOrderEvent({ ...good, data: { uid: good.data.uid } }), /does not match/);
    // Reading trusts the data checked on append, but not an unknown type or version.
    assert.equal(parseOrderEvent(good).type, 'OrderInvalidated');
    assert.throws(() => parseOrderEvent({ ...good, type: 'OrderDeleted' }), /unknown order book event type/);
    assert.throws(() => parseOrderEvent({ ...good, type: 'toString' }), /unknown order book event type/);
    assert.throws(() => parseOrderEvent({ ...good, schemaVersion: 2 }), /schemaVersion 2/);
  });
});
