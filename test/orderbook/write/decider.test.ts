import assert from 'node:assert/strict';
import { Wallet } from 'ethers';
import { validator } from '../../../src/shared/schemas.js';
import { decide, orderDecider, type OrderCommand } from '../../../src/orderbook/write/decider.js';
import {
  ORDER_EVENT_TYPES,
  orderStreamId,
  checkOrderEvent,
  parseOrderEvent,
  type ChainEventRef,
  type OrderEvent,
} from '../../../src/orderbook/write/events.js';
import {
  evolve,
  foldOrderEvents,
  initialState,
  isInvalidated,
  presentOrder,
  status,
  type OrderState,
} from '../../../src/orderbook/write/order-state.js';
import { verifyCancellation } from '../../../src/orderbook/domain/cancellation.js';
import { domainSeparator, gpv2Domain } from '../../../src/orderbook/domain/eip712.js';
import { OrderbookError } from '../../../src/orderbook/domain/errors.js';
import { statusOf } from '../../../src/orderbook/api/errors.js';
import { validateOrderCreation, type ValidatedOrder } from '../../../src/orderbook/domain/order.js';
import { signCancellation, signOrder, type OrderParams } from '../../support/orders.js';
import { DEV_KEYS } from '../../support/vectors.js';

const DOMAIN = gpv2Domain(1, '0x9008D19f58AAbD9eD0D60971565AA8510560ab41');
const SEPARATOR = domainSeparator(DOMAIN);
const NOW = 1_800_000_000;
const SETTLEMENT = '0x9008d19f58aabd9ed0d60971565aa8510560ab41';
const VALID_TO = NOW + 3600;
const alice = new Wallet(DEV_KEYS[1]);
const bob = new Wallet(DEV_KEYS[2]);
const SELL_TOKEN = '0x' + 'a1'.repeat(20);
const BUY_TOKEN = '0x' + 'b2'.repeat(20);
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/**
 * A stream under test: every decided event is checked against its schema (checkOrderEvent, as the command
 * handler does before appending) and folded into the state, so the tests see what the command handler would.
 */
class Stream {
  events: OrderEvent[] = [];
  state: OrderState = initialState();

  run(command: OrderCommand): OrderEvent[] {
    const events = decide(command, this.state);
    for (const event of events) {
      const stored = checkOrderEvent(JSON.parse(JSON.stringify(event)));
      this.events.push(stored);
      this.state = evolve(this.state, stored);
    }
    return events;
  }

  refused(command: OrderCommand, status: number, errorType: string): void {
    const before = this.events.length;
    assert.throws(
      () => this.run(command),
      (err: unknown) => err instanceof OrderbookError && statusOf(err) === status && err.errorType === errorType,
      errorType,
    );
    assert.equal(this.events.length, before, 'a refused command appends nothing');
  }

  status(now = NOW) {
    return status(this.state, now);
  }
}

async function validated(
  params: Partial<OrderParams> = {},
  scheme: 'eip712' | 'ethsign' | 'presign' | 'eip1271' = 'eip712',
): Promise<ValidatedOrder> {
  const { body } = await signOrder(alice, DOMAIN, {
    sellToken: SELL_TOKEN,
    buyToken: BUY_TOKEN,
    sellAmount: 1000n,
    buyAmount: 500n,
    feeAmount: 10n,
    validTo: VALID_TO,
    ...params,
  });
  if (scheme === 'presign') {
    body.signingScheme = 'presign';
    body.signature = alice.address;
  } else if (scheme === 'eip1271') {
    body.signingScheme = 'eip1271';
    body.signature = '0xc0ffee';
    body.from = alice.address;
  } else if (scheme === 'ethsign') {
    return validateOrderCreation(
      (await signOrder(alice, DOMAIN, { sellToken: SELL_TOKEN, buyToken: BUY_TOKEN, sellAmount: 1000n, buyAmount: 500n, validTo: VALID_TO, ...params }, { scheme: 'ethsign' })).body,
      { domainSeparator: SEPARATOR, now: NOW, minValidToSeconds: 0 },
    );
  }
  return validateOrderCreation(body, { domainSeparator: SEPARATOR, now: NOW, minValidToSeconds: 0 });
}

async function created(params: Partial<OrderParams> = {}, scheme?: 'eip712' | 'ethsign' | 'presign' | 'eip1271') {
  const order = await validated(params, scheme);
  const stream = new Stream();
  stream.run({ type: 'CreateOrder', data: { order, creationDate: iso(NOW - 10) } });
  return { order, stream };
}

let logCounter = 0;
function chain(blockNumber: number, logIndex = 0, blockHash?: string): ChainEventRef {
  logCounter++;
  return {
    blockNumber,
    blockHash: blockHash ?? '0x' + blockNumber.toString(16).padStart(64, 'B'),
    logIndex,
    transactionHash: '0x' + logCounter.toString(16).padStart(64, 'E'),
  };
}

function trade(order: ValidatedOrder, at: ChainEventRef, sellAmount: bigint, buyAmount: bigint, feeAmount: bigint): OrderCommand {
  return {
    type: 'RecordTrade',
    data: {
      uid: order.uid,
      chain: at,
      owner: order.owner,
      sellToken: order.sellToken,
      buyToken: order.buyToken,
      sellAmount,
      buyAmount,
      feeAmount,
    },
  };
}

async function cancel(order: ValidatedOrder, signer: Wallet, at = NOW, scheme: 'eip712' | 'ethsign' = 'eip712'): Promise<OrderCommand> {
  const body = await signCancellation(signer, DOMAIN, order.uid, scheme);
  return {
    type: 'CancelOrder',
    data: { uid: order.uid, cancellation: verifyCancellation(body, SEPARATOR, order.uid), cancelledAt: iso(at) },
  };
}

describe('order decider: creation and cancellation', () => {
  it('creates an order once: OrderCreated with the wire fields, then DuplicatedOrder', async () => {
    const { order, stream } = await created();
    assert.equal(stream.events.length, 1);
    const [event] = stream.events;
    assert.equal(event.type, 'OrderCreated');
    assert.equal(event.schemaVersion, 1);
    assert.deepEqual(event.data, {
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
    });
    assert.equal(stream.status(), 'open');
    stream.refused({ type: 'CreateOrder', data: { order, creationDate: iso(NOW) } }, 400, 'DuplicatedOrder');
    assert.equal(orderStreamId(order.uid.toUpperCase().replace('0X', '0x')), `order-${order.uid}`);
  });

  it('cancels an open order signed by its owner (eip712 and ethsign cancellations)', async () => {
    for (const scheme of ['eip712', 'ethsign'] as const) {
      const { order, stream } = await created({}, scheme);
      const events = stream.run(await cancel(order, alice, NOW + 5, scheme));
      assert.equal(events.length, 1);
      assert.equal(events[0].type, 'OrderCancelled');
      assert.deepEqual(Object.keys(events[0].data).sort(), ['cancelledAt', 'signature', 'signingScheme', 'uid']);
      assert.equal((events[0].data as { cancelledAt: string }).cancelledAt, iso(NOW + 5));
      assert.equal(stream.status(), 'cancelled');
      assert.equal(isInvalidated(stream.state), true);
      stream.refused(await cancel(order, alice, NOW + 6, scheme), 400, 'AlreadyCancelled');
    }
  });

  it('refuses a cancellation signed by someone else: 401 WrongOwner, nothing appended', async () => {
    const { order, stream } = await created();
    stream.refused(await cancel(order, bob), 401, 'WrongOwner');
    assert.equal(stream.status(), 'open');
  });

  it('refuses OrderNotFound, OrderFullyExecuted, OrderExpired and OnChainOrder', async () => {
    const unknown = await validated();
    new Stream().refused(await cancel(unknown, alice), 404, 'OrderNotFound');

    const { order, stream } = await created();
    stream.run(trade(order, chain(10), 1010n, 500n, 10n));
    stream.refused(await cancel(order, alice), 400, 'OrderFullyExecuted');

    const expiring = await created();
    expiring.stream.refused(await cancel(expiring.order, alice, VALID_TO + 1), 400, 'OrderExpired');
    // At validTo itself the order is still valid.
    assert.equal(expiring.stream.run(await cancel(expiring.order, alice, VALID_TO)).length, 1);

    const presign = await created({}, 'presign');
    presign.stream.refused(await cancel(presign.order, alice), 400, 'OnChainOrder');
    presign.stream.run({ type: 'SetPresignature', data: { uid: presign.order.uid, chain: chain(11), signed: true } });
    assert.equal(presign.stream.status(), 'open');
    presign.stream.refused(await cancel(presign.order, alice), 400, 'OnChainOrder');

    const eip1271 = await created({}, 'eip1271');
    eip1271.stream.refused(await cancel(eip1271.order, alice), 400, 'OnChainOrder');
  });

  it('treats an on-chain invalidation as cancelled for a later cancellation', async () => {
    const { order, stream } = await created();
    stream.run({ type: 'InvalidateOrder', data: { uid: order.uid, chain: chain(12) } });
    stream.refused(await cancel(order, alice), 400, 'AlreadyCancelled');
  });
});

describe('order decider: chain facts', () => {
  it('records a trade once per (blockHash, logIndex) and sums the executed amounts', async () => {
    const { order, stream } = await created({ partiallyFillable: true });
    const first = chain(20, 3);
    assert.equal(stream.run(trade(order, first, 505n, 250n, 5n)).length, 1);
    // The indexer delivers the same log again, in any case: nothing.
    const sameLog = { ...first, blockHash: first.blockHash.toUpperCase().replace('0X', '0x') };
    assert.deepEqual(stream.run(trade(order, sameLog, 505n, 250n, 5n)), []);
    const event = stream.events[1];
    assert.equal(event.type, 'TradeRecorded');
    assert.equal((event.data as { sellAmountBeforeFees: string }).sellAmountBeforeFees, '500');
    // Same block, other log: another trade.
    assert.equal(stream.run(trade(order, chain(20, 4, first.blockHash), 100n, 50n, 1n)).length, 1);
    assert.deepEqual(stream.state.executed, { sellAmount: 605n, sellAmountBeforeFees: 599n, buyAmount: 300n, feeAmount: 6n });
    assert.deepEqual(
      stream.state.trades.map((t) => t.chain.logIndex),
      [3, 4],
    );
  });

  it('applies the fill rule to sell orders, and keeps a half-filled partially fillable order open', async () => {
    const { order, stream } = await created({ partiallyFillable: true });
    stream.run(trade(order, chain(30), 505n, 260n, 5n));
    assert.equal(stream.state.fullyExecuted, false);
    assert.equal(stream.status(), 'open');
    const view = presentOrder(stream.state, NOW, SETTLEMENT, 123n);
    assert.ok(view);
    assert.equal(view.executedSellAmount, '505');
    assert.equal(view.executedSellAmountBeforeFees, '500');
    assert.equal(view.executedBuyAmount, '260');
    assert.equal(view.executedFeeAmount, '5');
    assert.equal(view.availableBalance, '123');
    assert.ok(validator('orderbook/order.schema.json')(view), 'the view is a valid wire Order');
    // The second half: sellAmountBeforeFees reaches sellAmount exactly (more buy amount does not matter).
    stream.run(trade(order, chain(31), 505n, 300n, 5n));
    assert.equal(stream.state.fullyExecuted, true);
    assert.equal(stream.status(), 'fulfilled');
    assert.equal(stream.status(VALID_TO + 100), 'fulfilled', 'fulfilled wins over expired');
  });

  it('applies the fill rule to buy orders by executedBuyAmount', async () => {
    const { order, stream } = await created({ kind: 'buy', partiallyFillable: true, sellAmount: 1000n, buyAmount: 500n });
    stream.run(trade(order, chain(40), 1010n, 499n, 10n));
    assert.equal(stream.status(), 'open', 'all the sell amount but not all the buy amount');
    stream.run(trade(order, chain(41), 3n, 1n, 0n));
    assert.equal(stream.status(), 'fulfilled');
  });

  it('records trades and invalidations for an order this book never saw', () => {
    const uid = '0x' + 'dd'.repeat(56);
    const stream = new Stream();
    const command = trade(
      { uid, owner: '0x' + 'EE'.repeat(20), sellToken: SELL_TOKEN, buyToken: BUY_TOKEN } as ValidatedOrder,
      chain(50),
      100n,
      90n,
      1n,
    );
    assert.equal(stream.run(command).length, 1);
    assert.equal(stream.run({ type: 'InvalidateOrder', data: { uid, chain: chain(51) } }).length, 1);
    assert.equal(stream.state.order, null);
    assert.equal(stream.state.trades.length, 1);
    assert.equal(stream.state.trades[0].owner, '0x' + 'ee'.repeat(20));
    assert.equal(stream.state.invalidatedOnChain, true);
    assert.equal(stream.state.fullyExecuted, false);
    assert.equal(stream.status(), null);
    assert.equal(presentOrder(stream.state, NOW, SETTLEMENT), null);
  });

  it('invalidates on-chain once per log, and a revert of the only invalidation makes the order open again', async () => {
    const { order, stream } = await created();
    const at = chain(60, 1);
    assert.equal(stream.run({ type: 'InvalidateOrder', data: { uid: order.uid, chain: at } }).length, 1);
    assert.deepEqual(stream.run({ type: 'InvalidateOrder', data: { uid: order.uid, chain: at } }), []);
    assert.equal(stream.status(), 'cancelled');
    assert.equal(presentOrder(stream.state, NOW, SETTLEMENT)?.invalidated, true);

    const reverted = stream.run({ type: 'RevertChainEvent', data: { uid: order.uid, blockHash: at.blockHash, logIndex: 1 } });
    assert.deepEqual(reverted.map((e) => [e.type, e.data]), [
      ['ChainEventReverted', { uid: order.uid, chain: { ...at, blockHash: at.blockHash.toLowerCase(), transactionHash: at.transactionHash.toLowerCase() }, reverted: 'OrderInvalidated' }],
    ]);
    assert.equal(stream.status(), 'open');
    // Reverting it again, or a log the stream never had, appends nothing.
    assert.deepEqual(stream.run({ type: 'RevertChainEvent', data: { uid: order.uid, blockHash: at.blockHash, logIndex: 1 } }), []);
    assert.deepEqual(stream.run({ type: 'RevertChainEvent', data: { uid: order.uid, blockHash: at.blockHash, logIndex: 2 } }), []);
    // The chain reorganises back: the same log is recorded again and counts again.
    assert.equal(stream.run({ type: 'InvalidateOrder', data: { uid: order.uid, chain: at } }).length, 1);
    assert.equal(stream.status(), 'cancelled');
    assert.deepEqual(stream.events.map((e) => e.type), ['OrderCreated', 'OrderInvalidated', 'ChainEventReverted', 'OrderInvalidated']);
  });

  it('keeps an order invalidated while any invalidation stands', async () => {
    const { order, stream } = await created();
    const first = chain(61);
    stream.run({ type: 'InvalidateOrder', data: { uid: order.uid, chain: first } });
    stream.run({ type: 'InvalidateOrder', data: { uid: order.uid, chain: chain(62) } });
    stream.run({ type: 'RevertChainEvent', data: { uid: order.uid, blockHash: first.blockHash, logIndex: first.logIndex } });
    assert.equal(stream.status(), 'cancelled');
  });

  it('reverts a trade: executed amounts and the fill rule follow', async () => {
    const { order, stream } = await created();
    const at = chain(70, 2);
    stream.run(trade(order, at, 1010n, 500n, 10n));
    assert.equal(stream.status(), 'fulfilled');
    const events = stream.run({ type: 'RevertChainEvent', data: { uid: order.uid, blockHash: at.blockHash, logIndex: 2 } });
    assert.equal((events[0].data as { reverted: string }).reverted, 'TradeRecorded');
    assert.equal(stream.status(), 'open');
    assert.deepEqual(stream.state.executed, { sellAmount: 0n, sellAmountBeforeFees: 0n, buyAmount: 0n, feeAmount: 0n });
    assert.deepEqual(stream.state.trades, []);
    // The trade is mined again in another block.
    stream.run(trade(order, chain(71, 0), 1010n, 500n, 10n));
    assert.equal(stream.status(), 'fulfilled');
  });

  it('follows the latest standing PreSignature by (blockNumber, logIndex), whatever the arrival order', async () => {
    const { order, stream } = await created({}, 'presign');
    assert.equal(stream.status(), 'presignaturePending');
    const signedAt = chain(80, 5);
    stream.run({ type: 'SetPresignature', data: { uid: order.uid, chain: signedAt, signed: true } });
    assert.equal(stream.status(), 'open');
    assert.deepEqual(stream.run({ type: 'SetPresignature', data: { uid: order.uid, chain: signedAt, signed: true } }), []);
    // A revocation later in the same block.
    const revokedAt = chain(80, 6, signedAt.blockHash);
    stream.run({ type: 'SetPresignature', data: { uid: order.uid, chain: revokedAt, signed: false } });
    assert.equal(stream.status(), 'presignaturePending');
    assert.equal(stream.events.at(-1)?.type, 'PresignatureRevoked');
    // An older signature arriving late does not override the newer revocation.
    stream.run({ type: 'SetPresignature', data: { uid: order.uid, chain: chain(79, 0), signed: true } });
    assert.equal(stream.status(), 'presignaturePending');
    // The revocation is reorganised away: the newest standing one signs.
    stream.run({ type: 'RevertChainEvent', data: { uid: order.uid, blockHash: revokedAt.blockHash, logIndex: 6 } });
    assert.equal(stream.status(), 'open');
    assert.equal(stream.status(VALID_TO + 1), 'expired');
  });

  it('ignores presignatures for the status of orders that are not presign', async () => {
    const { order, stream } = await created();
    stream.run({ type: 'SetPresignature', data: { uid: order.uid, chain: chain(90), signed: false } });
    assert.equal(stream.status(), 'open');
  });
});

describe('order state and status', () => {
  it('goes open → expired at validTo + 1', async () => {
    const { stream } = await created();
    assert.equal(stream.status(VALID_TO - 1), 'open');
    assert.equal(stream.status(VALID_TO), 'open');
    assert.equal(stream.status(VALID_TO + 1), 'expired');
  });

  it('says cancelled before expired, and expired before presignaturePending', async () => {
    const { order, stream } = await created({}, 'presign');
    assert.equal(stream.status(VALID_TO + 1), 'expired');
    stream.run({ type: 'InvalidateOrder', data: { uid: order.uid, chain: chain(100) } });
    assert.equal(stream.status(VALID_TO + 1), 'cancelled');
  });

  it('folds a stream the same way event by event and at once, and rebuilds it from the stored JSON', async () => {
    const { order, stream } = await created({ partiallyFillable: true });
    stream.run(trade(order, chain(110), 300n, 100n, 3n));
    stream.run({ type: 'InvalidateOrder', data: { uid: order.uid, chain: chain(111) } });
    const replayed = foldOrderEvents(stream.events.map((e) => checkOrderEvent(JSON.parse(JSON.stringify(e)))));
    assert.deepEqual(replayed, stream.state);
    // Each fold starts from a fresh, empty state: nothing one stream folded leaks into the next.
    const fresh = orderDecider.initialState();
    assert.notEqual(fresh, stream.state);
    assert.deepEqual(fresh, {
      order: null,
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
