/**
 * GET /api/v1/auction's body: the Auction object's JSON (id, block, orders, prices) written around the
 * orders' array as the solvable view encoded it, so that the orders are never parsed or written again.
 * Written once per auction the use case answers (it keeps the newest).
 */
import type { Auction } from '../../../generated/orderbook/auction.js';
import type { Pieces } from '../../read/solvable-encoding.js';
import type { AuctionFound } from '../../usecases/queries/auction.js';

const bodies = new WeakMap<AuctionFound, Pieces>();

export function auctionBody(auction: AuctionFound): Pieces {
  let body = bodies.get(auction);
  if (!body) {
    const { id, block, orders, prices } = auction;
    const head = Buffer.from(`{"id":${JSON.stringify(id)},"block":${JSON.stringify(block)},"orders":`);
    const wirePrices: Auction['prices'] = {};
    for (const [token, price] of prices) wirePrices[token] = price.toString();
    const tail = Buffer.from(`,"prices":${JSON.stringify(wirePrices)}}`);
    body = { buffers: [head, ...orders.buffers, tail], length: head.length + orders.length + tail.length };
    bodies.set(auction, body);
  }
  return body;
}
