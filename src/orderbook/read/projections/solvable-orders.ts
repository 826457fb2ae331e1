/**
 * Read model `solvable_orders`: the orders solvers should consider, as far as events decide it: known,
 * not fully executed, not cancelled or invalidated, and presigned when presign. Documents are never
 * removed (a reorganisation can make an order solvable again), so the `solvable` column says which are
 * in; the API's SolvableOrders view adds what depends on time (validTo) and the chain (balances).
 */
import type { Projection } from '../models/types.js';
import { isInvalidated, type OrderState } from '../../write/order-state.js';
import { applyOrderEvent, orderKeys, stateOf, type OrderDoc } from './orders.js';

export function solvableByEvents(state: OrderState): boolean {
  const order = state.order;
  if (!order || state.fullyExecuted || isInvalidated(state)) return false;
  return order.signingScheme !== 'presign' || state.presigned;
}

export const solvableOrdersProjection: Projection<OrderDoc> = {
  name: 'solvable_orders',
  version: 1,
  keysOf: orderKeys,
  apply: applyOrderEvent,
  // The SolvableOrders view (read/solvable-view.ts) reads the rows changed since its cursor.
  followed: true,
  columns: {
    // The view reads changed rows by position; these columns are for inspection, not queries.
    solvable: { type: 'boolean', of: (doc) => solvableByEvents(stateOf(doc)), indexed: false },
    valid_to: { type: 'integer', of: (doc) => doc.order?.validTo ?? null, indexed: false },
  },
};
