/**
 * The solvers' polled answers: GET /api/v1/solvable_orders (the solvable view's answer, built once per
 * change) and GET /api/v1/auction (built from it, with the tokens' native prices), and the ETags the solver
 * stream announces.
 */
import { createHash } from 'node:crypto';
import type { Order } from '../../../generated/orderbook/order.js';
import type { Auction } from '../../../generated/orderbook/auction.js';
import type { AuctionOrder } from '../../../generated/orderbook/auction-order.js';
import type { SolvableAnswer } from '../../read/solvable-view.js';
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
 * the set does and is the same on every instance that sees the same set.
 */
export async function auction(book: Pick<Book, 'solvable' | 'clock' | 'chain' | 'auctionCache'>): Promise<{ etag: string; body: string }> {
  const answer = await solvableOrders(book);
  const cache = book.auctionCache;
  if (cache.last?.etag === answer.etag) return cache.last;
  const orders = (JSON.parse(Buffer.concat(answer.body.buffers).toString('utf8')) as Order[]).map(auctionOrder);
  const prices: Record<string, string> = {};
  for (const token of new Set(orders.flatMap((o) => [o.sellToken, o.buyToken]))) {
    const priced = await tokenPrice(book, token).catch(() => null);
    if (priced) prices[token] = ((priced.price.numerator * 10n ** 18n) / priced.price.denominator).toString();
  }
  const id = Number.parseInt(createHash('sha256').update(answer.etag).digest('hex').slice(0, 12), 16);
  const built: Auction = { id, block: book.chain.headBlock?.() ?? 0, orders, prices };
  cache.last = { etag: answer.etag, body: JSON.stringify(built) };
  return cache.last;
}

/** A solvable order as GET /api/v1/auction forwards it (the reference's AuctionOrder). */
function auctionOrder(order: Order): AuctionOrder {
  return {
    uid: order.uid,
    sellToken: order.sellToken,
    buyToken: order.buyToken,
    sellAmount: order.sellAmount,
    buyAmount: order.buyAmount,
    created: String(Math.floor(Date.parse(order.creationDate) / 1000)),
    validTo: order.validTo,
    kind: order.kind,
    receiver: order.receiver,
    owner: order.owner,
    partiallyFillable: order.partiallyFillable,
    executed: order.kind === 'sell' ? order.executedSellAmountBeforeFees : order.executedBuyAmount,
    preInteractions: [],
    postInteractions: [],
    sellTokenBalance: order.sellTokenBalance,
    buyTokenBalance: order.buyTokenBalance,
    class: order.class ?? 'limit',
    appData: order.appData,
    signature: order.signature,
    signingScheme: order.signingScheme,
    protocolFees: [],
    ...(order.quote ? { quote: { sellAmount: order.quote.sellAmount, buyAmount: order.quote.buyAmount, fee: order.quote.feeAmount } } : {}),
  };
}
