/**
 * The order queries: one order, the listing (GET /api/v1/orders, a page along an index), by UIDs, an
 * owner's, a settlement transaction's, an order's competition status and its events. Orders are read from
 * the orders read model and answered as values with their funding (the solvable view's): the API presents
 * them (api/present-order.ts).
 */
import type { Trade } from '../../../generated/orderbook/trade.js';
import type { CompetitionOrderStatus } from '../../../generated/orderbook/competition-order-status.js';
import type { Condition, Query } from '../../read/models/types.js';
import type { StoredEvent } from '../../store/types.js';
import type { OrderCursor } from '../../read/order-cursor.js';
import type { Funding } from '../../domain/funding.js';
import { orderbookErrors } from '../../domain/errors.js';
import { parseOrderUid } from '../../domain/order.js';
import { stateOf, type OrderDoc } from '../../read/projections/orders.js';
import { status as orderStatus, type OrderState } from '../../write/order-state.js';
import { orderStreamId } from '../../write/events.js';
import { nowOf, type Book } from '../book.js';
import { readInTurns } from '../../../shared/next-turn.js';

export interface OrdersFilter {
  owner?: string;
  sellToken?: string;
  buyToken?: string;
  includeFullyExecuted: boolean;
  includeInvalidated: boolean;
  includeInsufficientBalance: boolean;
  /** Unix seconds; default now. */
  minValidTo?: number;
  /** Orders read for the page (those the include flags leave out are read, not listed). */
  limit: number;
  /** Where the page starts: after this order of the listing's order. */
  after?: OrderCursor;
}

/**
 * An order as the queries answer it: its state folded from its events, the time it was read at (its status
 * depends on it), and its funding when it is open and valid (amounts as bigint).
 */
export interface FoundOrder {
  state: OrderState;
  now: number;
  funding: Funding | undefined;
}

/** A page of GET /api/v1/orders and, when there may be more, where the next one starts. */
export interface OrdersPage {
  orders: FoundOrder[];
  next: OrderCursor | null;
}

export interface PageFilter {
  offset: number;
  limit: number;
}

/** One entry of POST /api/v1/orders/by_uids. */
export type OrderOrError = { order: FoundOrder } | { error: { uid: string; description: string } };

type Reader = Pick<Book, 'readModels' | 'solvable' | 'clock'>;

/** The order of a read model row (of a known order) at `now` with its funding. */
function found(row: { doc: OrderDoc }, now: number, funding: Funding | undefined): FoundOrder {
  return { state: stateOf(row.doc), now, funding };
}

/** The order of a read model row (of a known order) at `now`, with its funding now. */
async function view(book: Reader, row: { key: string; doc: OrderDoc }, now: number): Promise<FoundOrder> {
  return found(row, now, await book.solvable.fundingOf(row.key, now));
}

/** GET /api/v1/orders/{UID}. */
export async function getOrder(book: Reader, uidParam: string): Promise<FoundOrder> {
  const uid = parseOrderUid(uidParam);
  const row = await book.readModels.get<OrderDoc>('orders', uid);
  if (!row?.doc.order) throw orderbookErrors.orderNotFound();
  return view(book, row, nowOf(book));
}

/** Rows of GET /api/v1/orders read and shown in one turn of the event loop (a page takes several). */
export const ORDER_ROWS_PER_TURN = 100;

/**
 * GET /api/v1/orders: oldest first (creation time, then UID), `filter.limit` rows read after the cursor:
 * a bounded read whatever the book holds, ORDER_ROWS_PER_TURN at a time with a turn of the event loop
 * between (the same keyset as the page's cursor, so an order written meanwhile is listed once or not at all,
 * as between pages). A page whose rows the include flags thin out is shorter; the next cursor follows the
 * last row read, and is given whenever the page read as many rows as it could.
 */
export async function listOrders(book: Reader, filter: OrdersFilter): Promise<OrdersPage> {
  const now = nowOf(book);
  const orders: FoundOrder[] = [];
  let after = filter.after;
  const read = await readInTurns(filter.limit, ORDER_ROWS_PER_TURN, async (wanted) => {
    const rows = await book.readModels.find<OrderDoc>('orders', ordersQuery({ ...filter, after, limit: wanted }, now));
    for (const row of rows) {
      const funding = await book.solvable.fundingOf(row.key, now);
      if (funding && !funding.funded && !filter.includeInsufficientBalance) continue;
      orders.push(found(row, now, funding));
    }
    const last = rows.at(-1);
    // A row without its order (an unknown UID's) is never listed (the query asks for known ones).
    if (last?.doc.order) after = { createdAt: last.doc.order.creationDate, uid: last.key };
    return rows.length;
  });
  const next = read === filter.limit && after && after !== filter.after ? after : null;
  return { orders, next };
}

/** POST /api/v1/orders/by_uids: the known orders among up to 128 UIDs (unknown ones are left out, as the reference does). */
export async function ordersByUids(book: Reader, uids: string[]): Promise<OrderOrError[]> {
  const now = nowOf(book);
  const out: OrderOrError[] = [];
  for (const uid of new Set(uids.map((u) => u.toLowerCase()))) {
    const row = await book.readModels.get<OrderDoc>('orders', uid);
    if (!row?.doc.order) continue;
    out.push({ order: await view(book, row, now) });
  }
  return out;
}

/**
 * GET /api/v1/orders/{UID}/status. No solver competition runs here: an open order solvers can settle
 * (funded, presigned where presign) is active, an open one they cannot yet is open, a fulfilled one
 * traded, a cancelled or expired one cancelled.
 */
export async function competitionStatus(book: Reader, uidParam: string): Promise<CompetitionOrderStatus> {
  const uid = parseOrderUid(uidParam);
  const row = await book.readModels.get<OrderDoc>('orders', uid);
  if (!row?.doc.order) throw orderbookErrors.orderNotFound();
  const now = nowOf(book);
  switch (orderStatus(stateOf(row.doc), now)) {
    case 'fulfilled':
      return { type: 'traded' };
    case 'cancelled':
    case 'expired':
      return { type: 'cancelled' };
    case 'presignaturePending':
      return { type: 'open' };
    default: {
      const funding = await book.solvable.fundingOf(uid, now);
      return { type: funding?.funded ? 'active' : 'open' };
    }
  }
}

/** GET /api/v1/account/{owner}/orders: every order of the owner, newest first, a page at a time. */
export async function accountOrders(book: Reader, owner: string, page: PageFilter): Promise<FoundOrder[]> {
  const rows = await book.readModels.find<OrderDoc>('orders', {
    where: [
      { column: 'known', op: '=', value: true },
      { column: 'owner', op: '=', value: owner },
    ],
    orderBy: [{ column: 'created_at', desc: true }, { column: 'id', desc: true }],
    limit: page.limit,
    offset: page.offset,
  });
  const now = nowOf(book);
  const orders: FoundOrder[] = [];
  for (const row of rows) orders.push(await view(book, row, now));
  return orders;
}

/** GET /api/v1/transactions/{txHash}/orders: the orders the settlement transaction traded, in trade order. */
export async function transactionOrders(book: Reader, txHash: string): Promise<FoundOrder[]> {
  const trades = await book.readModels.find<Trade>('trades', {
    where: [{ column: 'tx_hash', op: '=', value: txHash }],
    orderBy: [{ column: 'log_index' }],
  });
  const known = await ordersByUids(book, trades.map((t) => t.doc.orderUid));
  return known.flatMap((entry) => ('order' in entry ? [entry.order] : []));
}

/** GET /api/v1/orders/{UID}/events: the order's history, oldest first. */
export async function orderEvents(book: Pick<Book, 'events'>, uidParam: string): Promise<StoredEvent[]> {
  const events = await book.events.readStream(orderStreamId(parseOrderUid(uidParam)));
  if (events.length === 0) throw orderbookErrors.orderNotFound();
  return events;
}

/**
 * The read of one page of GET /api/v1/orders at `now`: the filters, creation order (then UID), after the
 * cursor, `limit` rows. Every filter column's index goes on by (created_at, id) (projections/orders.ts), so
 * the page is read along an index whatever the filters.
 */
export function ordersQuery(filter: OrdersFilter, now: number): Query {
  const where: Condition[] = [
    { column: 'known', op: '=', value: true },
    { column: 'valid_to', op: '>=', value: filter.minValidTo ?? now },
  ];
  if (filter.owner) where.push({ column: 'owner', op: '=', value: filter.owner });
  if (filter.sellToken) where.push({ column: 'sell_token', op: '=', value: filter.sellToken });
  if (filter.buyToken) where.push({ column: 'buy_token', op: '=', value: filter.buyToken });
  if (!filter.includeFullyExecuted) where.push({ column: 'fully_executed', op: '=', value: false });
  if (!filter.includeInvalidated) where.push({ column: 'invalidated', op: '=', value: false });
  return {
    where,
    orderBy: [{ column: 'created_at' }, { column: 'id' }],
    after: filter.after && [filter.after.createdAt, filter.after.uid],
    limit: filter.limit,
  };
}
