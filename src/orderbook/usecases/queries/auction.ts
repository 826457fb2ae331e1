/**
 * The solvers' polled answers: GET /api/v1/solvable_orders (the solvable view's answer, built once per
 * change) and GET /api/v1/auction (built from it, with the tokens' native prices), and the ETags the solver
 * stream announces.
 */
import { createHash } from 'node:crypto';
import type { Auction } from '../../../generated/orderbook/auction.js';
import type { SolvableAnswer } from '../../read/solvable-view.js';
import type { Pieces } from '../../read/solvable-encoding.js';
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
 * The auction GET /api/v1/auction answers, for the solvable set tagged `etag`: its id, the newest block seen,
 * the orders as the solvable view encoded them (a JSON array of their auction forms) and the native prices
 * of their tokens (×1e18), by token in the order the tokens first appear. The API writes the Auction object
 * around the orders (api/encoding/auction.ts).
 */
export interface AuctionFound {
  etag: string;
  id: Auction['id'];
  block: Auction['block'];
  orders: Pieces;
  prices: Map<string, bigint>;
}

/**
 * GET /api/v1/auction: the solvable orders (as solvable_orders has them), the newest block seen, and the
 * native prices of their tokens (×1e18). The id is derived from the solvable set's ETag: it changes when
 * the set does and is the same on every instance that sees the same set. The orders come encoded from the
 * solvable view (each order's auction form made once per order state), so building the auction again after
 * a change costs its prices, not the book.
 */
export async function auction(book: Pick<Book, 'solvable' | 'clock' | 'chain' | 'auctionCache'>): Promise<AuctionFound> {
  const answer = await solvableOrders(book);
  const cache = book.auctionCache;
  if (cache.last?.etag === answer.etag) return cache.last;
  const { orders, tokens } = answer.auctionOrders();
  const prices = new Map<string, bigint>();
  for (const token of tokens) {
    const priced = await tokenPrice(book, token).catch(() => null);
    if (priced) prices.set(token, (priced.price.numerator * 10n ** 18n) / priced.price.denominator);
  }
  const id: Auction['id'] = Number.parseInt(createHash('sha256').update(answer.etag).digest('hex').slice(0, 12), 16);
  const block: Auction['block'] = book.chain.headBlock?.() ?? 0;
  cache.last = { etag: answer.etag, id, block, orders, prices };
  return cache.last;
}
