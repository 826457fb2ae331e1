/**
 * The solvable orders view's encoding (read/solvable-encoding.ts declares what it needs): orders as
 * solvable_orders and the auction write them, as JSON. The view caches what this makes.
 */
import type { SolvableEncoding } from '../../read/solvable-encoding.js';
import { presentOrder } from '../present-order.js';
import { auctionOrder } from './auction-order.js';

/** The encoding for a book whose settlement contract (lowercase) every order shows. */
export function solvableEncoding(settlement: string): SolvableEncoding {
  return {
    order: (state, now, availableBalance) => Buffer.from(JSON.stringify(presentOrder(state, now, settlement, availableBalance)!)),
    // The auction form has no field that depends on the time or the balance.
    auctionOrder: (state) => Buffer.from(JSON.stringify(auctionOrder(presentOrder(state, 0, settlement)!))),
  };
}
