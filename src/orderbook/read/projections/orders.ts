/**
 * Read model `orders`: one document per order UID holding the order's facts (the signed order, its
 * cancellation, its chain facts). Every field of the wire Order is derived from them when read, since
 * `status` and `availableBalance` depend on the time and the chain; the columns serve the filters of
 * GET /api/v1/orders.
 */
import type { StoredEvent } from '../../store/types.js';
import type { Projection } from '../models/types.js';
import { parseOrderEvent } from '../../write/events.js';
import {
  evolve,
  factsOf,
  initialState,
  isInvalidated,
  stateFromFacts,
  type OrderFacts,
  type OrderState,
} from '../../write/order-state.js';

export type OrderDoc = OrderFacts;

/** Every order book event names its order's UID. */
export function orderKeys(event: StoredEvent): string[] {
  const uid = (event.data as { uid?: unknown } | null)?.uid;
  return typeof uid === 'string' ? [uid] : [];
}

/**
 * The state of each document, derived once (columns and the next event's apply read it), kept on the
 * document under a symbol: JSON (what the stores keep, what digests hash) leaves symbol keys out. A WeakMap
 * would do the same at a cost the garbage collector pays for every document of a replay.
 */
const STATE = Symbol('derived state');
type Memo = OrderDoc & { [STATE]?: OrderState };

export function applyOrderEvent(doc: OrderDoc | undefined, event: StoredEvent): OrderDoc {
  const state = evolve(doc ? stateOf(doc) : initialState(), parseOrderEvent(event));
  // evolve of a derived state gives a derived state: it is the new document's.
  const facts: Memo = factsOf(state);
  facts[STATE] = state;
  return facts;
}

export function stateOf(doc: OrderDoc): OrderState {
  const memo = doc as Memo;
  return (memo[STATE] ??= stateFromFacts(doc));
}

export const ordersProjection: Projection<OrderDoc> = {
  name: 'orders',
  version: 1,
  keysOf: orderKeys,
  apply: applyOrderEvent,
  columns: {
    // false for an order known only from chain facts (a trade of an order placed elsewhere)
    known: { type: 'boolean', of: (doc) => doc.order !== null, indexed: false },
    owner: { type: 'text', of: (doc) => doc.order?.owner ?? null },
    sell_token: { type: 'text', of: (doc) => doc.order?.sellToken ?? null },
    buy_token: { type: 'text', of: (doc) => doc.order?.buyToken ?? null },
    valid_to: { type: 'integer', of: (doc) => doc.order?.validTo ?? null },
    created_at: { type: 'text', of: (doc) => doc.order?.creationDate ?? null },
    // Flags most orders share: filtered on, but no help as indexes.
    fully_executed: { type: 'boolean', of: (doc) => stateOf(doc).fullyExecuted, indexed: false },
    invalidated: { type: 'boolean', of: (doc) => isInvalidated(stateOf(doc)), indexed: false },
  },
};
