/**
 * The state of one order, folded from its stream: `evolve(state, event)` from `initialState()`. The
 * deciders read it, and so can anything that wants one order's status from its events.
 *
 * Chain facts are kept in stream order with a reverted flag; what depends on them (on-chain invalidation,
 * presignature, trades, executed amounts, the fill rule) is derived from the facts not reverted. Trades and
 * invalidations may come for an order this book never saw (no OrderCreated): they are kept all the same,
 * and `order` stays null.
 */
import type { Order } from '../../generated/orderbook/order.js';
import { isFullyExecuted } from '../domain/order.js';
import {
  chainEventKey,
  type ChainEvent,
  type ChainEventRef,
  type OrderCancelledData,
  type OrderCreatedData,
  type OrderEvent,
  type TradeRecordedData,
} from './events.js';

export type OrderStatus = Order['status'];

export interface ChainFact {
  type: ChainEvent['type'];
  chain: ChainEventRef;
  /** Set by ChainEventReverted: the log is no longer on the canonical chain. */
  reverted: boolean;
  /** The trade, for TradeRecorded. */
  trade: TradeRecordedData | null;
}

/** The amounts the order signed, parsed once from its OrderCreated data (decimal strings there, as stored). */
export interface SignedAmounts {
  sellAmount: bigint;
  buyAmount: bigint;
  feeAmount: bigint;
}

export function signedAmountsOf(order: OrderCreatedData | null): SignedAmounts | null {
  return order && { sellAmount: BigInt(order.sellAmount), buyAmount: BigInt(order.buyAmount), feeAmount: BigInt(order.feeAmount) };
}

export interface ExecutedAmounts {
  /** Sum of the trades' sellAmount, fee included. */
  sellAmount: bigint;
  sellAmountBeforeFees: bigint;
  buyAmount: bigint;
  feeAmount: bigint;
}

export interface OrderState {
  order: OrderCreatedData | null;
  /** The order's signed amounts as numbers (null while the order itself is unknown). */
  amounts: SignedAmounts | null;
  cancellation: OrderCancelledData | null;
  /** Every chain fact of the stream, in stream order, reverted ones included. */
  chainFacts: readonly ChainFact[];
  // Derived from the facts not reverted:
  /** An OrderInvalidated log stands. */
  invalidatedOnChain: boolean;
  /** The latest PreSignature log by (blockNumber, logIndex) signed the order. */
  presigned: boolean;
  /** The trades, by (blockNumber, logIndex). */
  trades: readonly TradeRecordedData[];
  executed: ExecutedAmounts;
  /** The fill rule holds (false while the order itself is unknown). */
  fullyExecuted: boolean;
}

export const NOTHING_EXECUTED: ExecutedAmounts = { sellAmount: 0n, sellAmountBeforeFees: 0n, buyAmount: 0n, feeAmount: 0n };

export function initialState(): OrderState {
  return {
    order: null,
    amounts: null,
    cancellation: null,
    chainFacts: [],
    invalidatedOnChain: false,
    presigned: false,
    trades: [],
    executed: NOTHING_EXECUTED,
    fullyExecuted: false,
  };
}

function byChainPosition(a: { chain: ChainEventRef }, b: { chain: ChainEventRef }): number {
  return a.chain.blockNumber - b.chain.blockNumber || a.chain.logIndex - b.chain.logIndex;
}

const NO_TRADES: readonly TradeRecordedData[] = [];

/** The trades among `facts` that are not reverted, by (blockNumber, logIndex). */
export function tradesOf(facts: readonly ChainFact[]): readonly TradeRecordedData[] {
  if (facts.length === 0) return NO_TRADES;
  return facts
    .filter((fact) => fact.type === 'TradeRecorded' && !fact.reverted)
    .sort(byChainPosition)
    .map((fact) => fact.trade as TradeRecordedData);
}

/**
 * The state of an order, cancellation and chain facts: everything else is derived from the facts not
 * reverted. The states here are written out field by field rather than spread from the previous one:
 * on Node 20's V8, `{ ...state, field }` (a spread followed by a property) takes a slow path that costs
 * microseconds per object and leaves garbage that survives the young generation's collections (seen
 * with --trace-gc-nvp on the service while it answered GET /api/v1/orders/{UID}).
 */
function derive(order: OrderCreatedData | null, cancellation: OrderCancelledData | null, chainFacts: readonly ChainFact[]): OrderState {
  const amounts = signedAmountsOf(order);
  const fullyExecuted = (executed: ExecutedAmounts) =>
    order !== null && isFullyExecuted({ kind: order.kind, sellAmount: amounts!.sellAmount, buyAmount: amounts!.buyAmount }, executed);
  // Most orders never see the chain: skip the bookkeeping (a replay derives millions of states).
  if (chainFacts.length === 0) {
    return {
      order,
      amounts,
      cancellation,
      chainFacts,
      invalidatedOnChain: false,
      presigned: false,
      trades: NO_TRADES,
      executed: NOTHING_EXECUTED,
      fullyExecuted: fullyExecuted(NOTHING_EXECUTED),
    };
  }
  const standing = chainFacts.filter((fact) => !fact.reverted);
  const presignatures = standing
    .filter((fact) => fact.type === 'OrderPresigned' || fact.type === 'PresignatureRevoked')
    .sort(byChainPosition);
  const trades = tradesOf(standing);
  const executed = trades.reduce<ExecutedAmounts>(
    (sum, trade) => ({
      sellAmount: sum.sellAmount + BigInt(trade.sellAmount),
      sellAmountBeforeFees: sum.sellAmountBeforeFees + BigInt(trade.sellAmountBeforeFees),
      buyAmount: sum.buyAmount + BigInt(trade.buyAmount),
      feeAmount: sum.feeAmount + BigInt(trade.feeAmount),
    }),
    NOTHING_EXECUTED,
  );
  return {
    order,
    amounts,
    cancellation,
    chainFacts,
    invalidatedOnChain: standing.some((fact) => fact.type === 'OrderInvalidated'),
    presigned: presignatures.at(-1)?.type === 'OrderPresigned',
    trades,
    executed,
    fullyExecuted: fullyExecuted(executed),
  };
}

export function evolve(state: OrderState, event: OrderEvent): OrderState {
  switch (event.type) {
    case 'OrderCreated':
      return derive(event.data, state.cancellation, state.chainFacts);
    case 'OrderCancelled':
      return derive(state.order, event.data, state.chainFacts);
    case 'OrderInvalidated':
    case 'OrderPresigned':
    case 'PresignatureRevoked':
    case 'TradeRecorded': {
      const fact: ChainFact = {
        type: event.type,
        chain: event.data.chain,
        reverted: false,
        trade: event.type === 'TradeRecorded' ? event.data : null,
      };
      return derive(state.order, state.cancellation, [...state.chainFacts, fact]);
    }
    case 'ChainEventReverted': {
      const index = standingFactIndex(state, event.data.chain);
      if (index < 0) return state;
      const chainFacts = state.chainFacts.map((fact, i): ChainFact =>
        i === index ? { type: fact.type, chain: fact.chain, reverted: true, trade: fact.trade } : fact,
      );
      return derive(state.order, state.cancellation, chainFacts);
    }
  }
}

/** Folds a stream's events from the initial state. */
export function foldOrderEvents(events: Iterable<OrderEvent>): OrderState {
  let state = initialState();
  for (const event of events) state = evolve(state, event);
  return state;
}

/**
 * The index of the newest fact of the log (blockHash, logIndex) that is not reverted, or -1. A log can
 * come back after its revert (the chain reorganised back), so one log may have several facts.
 */
export function standingFactIndex(state: OrderState, chain: Pick<ChainEventRef, 'blockHash' | 'logIndex'>): number {
  const key = chainEventKey(chain);
  return state.chainFacts.findLastIndex((fact) => !fact.reverted && chainEventKey(fact.chain) === key);
}

/** Cancelled off-chain or invalidated on-chain: the wire's `invalidated`. */
export function isInvalidated(state: OrderState): boolean {
  return state.cancellation !== null || state.invalidatedOnChain;
}

/**
 * The wire status at `now` (Unix seconds), as CoW's order book computes it, first match wins: fulfilled
 * (the fill rule), cancelled (cancelled off-chain or invalidated on-chain), expired (validTo < now),
 * presignaturePending (a presign order without a standing PreSignature), open. null when the order itself
 * is unknown (only chain facts).
 */
export function status(state: OrderState, now: number): OrderStatus | null {
  const order = state.order;
  if (!order) return null;
  if (state.fullyExecuted) return 'fulfilled';
  if (isInvalidated(state)) return 'cancelled';
  if (order.validTo < now) return 'expired';
  if (order.signingScheme === 'presign' && !state.presigned) return 'presignaturePending';
  return 'open';
}
