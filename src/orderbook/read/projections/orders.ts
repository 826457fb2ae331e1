/**
 * Read model `orders`: one document per order UID holding the order's state as its events left it, the
 * derived part included (executed amounts, fill, invalidation, presignature), so that a read is a lookup:
 * the wire Order at a time is this document plus what depends on the time (status's expiry) and the chain
 * (availableBalance). The columns serve the filters of GET /api/v1/orders, and `solvable` the solvable
 * orders view (read/solvable-view.ts), which follows this read model by position.
 */
import { defineProjection } from './define.js';
import {
  evolve,
  initialState,
  tradesOf,
  NOTHING_EXECUTED,
  signedAmountsOf,
  type ChainFact,
  type ExecutedAmounts,
  type OrderState,
} from '../../write/order-state.js';
import type { OrderCancelledData, OrderCreatedData } from '../../write/events.js';

/** An OrderState as JSON (amounts as decimal strings). */
export interface OrderDoc {
  order: OrderCreatedData | null;
  cancellation: OrderCancelledData | null;
  chainFacts: ChainFact[];
  executed: { sellAmount: string; sellAmountBeforeFees: string; buyAmount: string; feeAmount: string };
  invalidatedOnChain: boolean;
  presigned: boolean;
  fullyExecuted: boolean;
}

const NOTHING = { sellAmount: '0', sellAmountBeforeFees: '0', buyAmount: '0', feeAmount: '0' };

export function docOf(state: OrderState): OrderDoc {
  const e = state.executed;
  return {
    order: state.order,
    cancellation: state.cancellation,
    chainFacts: state.chainFacts as ChainFact[],
    executed:
      e.sellAmount === 0n && e.buyAmount === 0n && e.feeAmount === 0n && e.sellAmountBeforeFees === 0n
        ? NOTHING
        : { sellAmount: String(e.sellAmount), sellAmountBeforeFees: String(e.sellAmountBeforeFees), buyAmount: String(e.buyAmount), feeAmount: String(e.feeAmount) },
    invalidatedOnChain: state.invalidatedOnChain,
    presigned: state.presigned,
    fullyExecuted: state.fullyExecuted,
  };
}

/** The order's state, as stored: nothing is derived again. */
export function stateOf(doc: OrderDoc): OrderState {
  const e = doc.executed;
  const executed: ExecutedAmounts =
    e.sellAmount === '0' && e.buyAmount === '0' && e.feeAmount === '0' && e.sellAmountBeforeFees === '0'
      ? NOTHING_EXECUTED
      : { sellAmount: BigInt(e.sellAmount), sellAmountBeforeFees: BigInt(e.sellAmountBeforeFees), buyAmount: BigInt(e.buyAmount), feeAmount: BigInt(e.feeAmount) };
  return {
    order: doc.order,
    amounts: signedAmountsOf(doc.order),
    cancellation: doc.cancellation,
    chainFacts: doc.chainFacts,
    invalidatedOnChain: doc.invalidatedOnChain,
    presigned: doc.presigned,
    trades: tradesOf(doc.chainFacts),
    executed,
    fullyExecuted: doc.fullyExecuted,
  };
}

/**
 * Open by its events: known, not fully executed, not cancelled or invalidated, and presigned when presign.
 * Time (validTo) and the owner's funds decide the rest, when solvable orders are read.
 */
export function solvableByEvents(state: Pick<OrderState, 'order' | 'fullyExecuted' | 'presigned' | 'cancellation' | 'invalidatedOnChain'>): boolean {
  const order = state.order;
  if (!order || state.fullyExecuted || state.cancellation !== null || state.invalidatedOnChain) return false;
  return order.signingScheme !== 'presign' || state.presigned;
}

export const ordersProjection = defineProjection<OrderDoc, 'OrderCreated' | 'OrderCancelled' | 'OrderInvalidated' | 'OrderPresigned' | 'PresignatureRevoked' | 'TradeRecorded' | 'ChainEventReverted'>({
  name: 'orders',
  // 2: the document is the order's state with its derived part (was: the facts only), and `solvable`.
  version: 2,
  handles: ['OrderCreated', 'OrderCancelled', 'OrderInvalidated', 'OrderPresigned', 'PresignatureRevoked', 'TradeRecorded', 'ChainEventReverted'],
  // Every order book event names its order's UID.
  keysOf: (event) => [event.data.uid],
  evolve: (doc, event) => docOf(evolve(doc ? stateOf(doc) : initialState(), event)),
  followed: true,
  columns: {
    // false for an order known only from chain facts (a trade of an order placed elsewhere)
    known: { type: 'boolean', of: (doc) => doc.order !== null, indexed: false },
    // GET /api/v1/orders lists by creation (then UID), a page at a time: each filter's index goes on in that
    // order, so a page is read along it and stops at its limit instead of sorting every match.
    owner: { type: 'text', of: (doc) => doc.order?.owner ?? null, indexWith: ['created_at', 'id'] },
    sell_token: { type: 'text', of: (doc) => doc.order?.sellToken ?? null, indexWith: ['created_at', 'id'] },
    buy_token: { type: 'text', of: (doc) => doc.order?.buyToken ?? null, indexWith: ['created_at', 'id'] },
    valid_to: { type: 'integer', of: (doc) => doc.order?.validTo ?? null },
    created_at: { type: 'text', of: (doc) => doc.order?.creationDate ?? null, indexWith: ['id'] },
    // Flags most orders share: filtered on, but no help as indexes.
    fully_executed: { type: 'boolean', of: (doc) => doc.fullyExecuted, indexed: false },
    invalidated: { type: 'boolean', of: (doc) => doc.cancellation !== null || doc.invalidatedOnChain, indexed: false },
    solvable: { type: 'boolean', of: (doc) => solvableByEvents(doc), indexed: false },
  },
});
