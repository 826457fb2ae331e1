/**
 * The trade queries: GET /api/v1/trades (oldest first), GET /api/v2/trades (newest first, txHash only) and
 * GET /api/v1/users/{address}/total_surplus, read from the trades read model along its indexes.
 */
import type { Trade } from '../../../generated/orderbook/trade.js';
import type { Condition, Query } from '../../read/models/types.js';
import type { OrderDoc } from '../../read/projections/orders.js';
import type { TokenPrice } from '../../domain/quote.js';
import { tokenPrice } from './prices.js';
import type { Book } from '../book.js';

/** GET /api/v1/users/{address}/total_surplus sums over at most this many of the owner's newest trades. */
export const TOTAL_SURPLUS_MAX_TRADES = 1000;

export interface TradesFilter {
  owner?: string;
  orderUid?: string;
  offset: number;
  limit: number;
}

/** GET /api/v1/trades. */
export async function listTrades(book: Pick<Book, 'readModels'>, filter: TradesFilter): Promise<Trade[]> {
  const rows = await book.readModels.find<Trade>('trades', tradesQuery(filter, 'oldest'));
  return rows.map((r) => r.doc);
}

/** GET /api/v2/trades: newest first, with txHash only. */
export async function listTradesV2(book: Pick<Book, 'readModels'>, filter: TradesFilter): Promise<Trade[]> {
  const rows = await book.readModels.find<Trade>('trades', tradesQuery(filter, 'newest'));
  return rows.map(({ doc: { transactionHash: _, ...trade } }) => trade);
}

/**
 * GET /api/v1/users/{address}/total_surplus: over the user's trades, what they got beyond their limit
 * price (sell orders: more buy token; buy orders: less sell token), in native token atoms at today's
 * prices; trades of tokens nothing prices count 0. Over the owner's newest TOTAL_SURPLUS_MAX_TRADES trades
 * at most, so that one request reads a bounded number of documents however many trades the owner made.
 */
export async function totalSurplus(book: Pick<Book, 'readModels' | 'chain'>, owner: string): Promise<bigint> {
  const trades = await book.readModels.find<Trade>('trades', tradesQuery({ owner, offset: 0, limit: TOTAL_SURPLUS_MAX_TRADES }, 'newest'));
  const prices = new Map<string, TokenPrice | null>();
  const priceOf = async (token: string) => {
    if (!prices.has(token)) prices.set(token, await tokenPrice(book, token).then((p) => p.price, () => null));
    return prices.get(token)!;
  };
  let total = 0n;
  for (const { doc: trade } of trades) {
    const order = (await book.readModels.get<OrderDoc>('orders', trade.orderUid))?.doc.order;
    if (!order) continue;
    const [sell, buy, sold, bought] = [order.sellAmount, order.buyAmount, trade.sellAmountBeforeFees, trade.buyAmount].map(BigInt);
    let surplus: bigint;
    let token: string;
    if (order.kind === 'sell') {
      surplus = bought - (buy * sold + sell - 1n) / sell;
      token = order.buyToken;
    } else {
      surplus = (sell * bought) / buy - sold;
      token = order.sellToken;
    }
    const price = await priceOf(token);
    if (surplus > 0n && price) total += (surplus * price.numerator) / price.denominator;
  }
  return total;
}

/**
 * The read of a page of trades (GET /api/v1/trades oldest first, /api/v2/trades and total_surplus newest
 * first): by block and log index, along the index of the filter column (projections/trades.ts).
 */
export function tradesQuery(filter: TradesFilter, first: 'oldest' | 'newest'): Query {
  const where: Condition[] = [];
  if (filter.owner) where.push({ column: 'owner', op: '=', value: filter.owner });
  if (filter.orderUid) where.push({ column: 'order_uid', op: '=', value: filter.orderUid });
  const desc = first === 'newest';
  return { where, orderBy: [{ column: 'block_number', desc }, { column: 'log_index', desc }], limit: filter.limit, offset: filter.offset };
}
