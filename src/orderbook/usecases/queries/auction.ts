/**
 * The solvers' polled answers: GET /api/v1/solvable_orders (the solvable view's answer, built once per
 * change) and GET /api/v1/auction (built from it, with the tokens' native prices), and the ETags the solver
 * stream announces.
 */
import { createHash } from 'node:crypto';
import type { Auction } from '../../../generated/orderbook/auction.js';
import type { Pieces, SolvableAnswer } from '../../read/solvable-view.js';
import { tokenPrice } from './prices.js';
import { nowOf, type Book } from '../book.js';

/** GET /api/v1/solvable_orders: the solvable orders now, with their ETag. */
export function solvableOrders(book: Pick<Book, 'solvable' | 'clock'>): Promise<SolvableAnswer> {
  return book.solvable.answer(nowOf(book));
}

/** The ETag GET /api/v1/auction answers with now: the solvable set's, which the auction is built from. */
export async function auctionTag(book: Pick<Book, 'solvable' | 'clock'>): Promise<string> {
  return (await solvableOrders(book)).etag;
}

/**
 * GET /api/v1/auction: the solvable orders (as solvable_orders has them), the newest block seen, and the
 * native prices of their tokens (×1e18). The id is derived from the solvable set's ETag: it changes when
 * the set does and is the same on every instance that sees the same set. The orders come encoded from the
 * solvable view (each order's auction form made once per order state), so building the auction again after
 * a change costs its prices, not the book.
 */
export async function auction(book: Pick<Book, 'solvable' | 'clock' | 'chain' | 'auctionCache'>): Promise<{ etag: string; body: Pieces }> {
  const answer = await solvableOrders(book);
  const cache = book.auctionCache;
  if (cache.last?.etag === answer.etag) return cache.last;
  const { orders, tokens } = answer.auctionOrders();
  const prices: Auction['prices'] = {};
  for (const token of tokens) {
    const priced = await tokenPrice(book, token).catch(() => null);
    if (priced) prices[token] = ((priced.price.numerator * 10n ** 18n) / priced.price.denominator).toString();
  }
  const id: Auction['id'] = Number.parseInt(createHash('sha256').update(answer.etag).digest('hex').slice(0, 12), 16);
  const block: Auction['block'] = book.chain.headBlock?.() ?? 0;
  // The Auction object's JSON (id, block, orders, prices), with the orders' array as the view encoded it.
  const head = Buffer.from(`{"id":${JSON.stringify(id)},"block":${JSON.stringify(block)},"orders":`);
  const tail = Buffer.from(`,"prices":${JSON.stringify(prices)}}`);
  cache.last = { etag: answer.etag, body: { buffers: [head, ...orders.buffers, tail], length: head.length + orders.length + tail.length } };
  return cache.last;
}
