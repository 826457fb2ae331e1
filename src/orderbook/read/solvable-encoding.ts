/**
 * What the solvable orders view (solvable-view.ts) needs of the wire, declared here and implemented by the
 * API (api/encoding/solvable.ts), which owns the formats: the view keeps what it encoded (per order, per
 * segment) and encodes again only what changed, but how an order is written is the API's. The order book's
 * start passes the implementation when the view is made.
 */
import type { OrderState } from '../write/order-state.js';

export interface SolvableEncoding {
  /** The order as solvable_orders writes it at `now`, with the balance available to it. */
  order(state: OrderState, now: number, availableBalance: bigint | null): Buffer;
  /** The order as GET /api/v1/auction writes it: nothing of it depends on the time or the balance. */
  auctionOrder(state: OrderState): Buffer;
}
