/** Query strings and bodies of the order book API, checked against schemas/orderbook/queries. */
import type { Context } from 'koa';
import { validator } from '../../shared/schemas.js';
import { orderbookErrors } from '../domain/errors.js';
import { readBody, isJsonContentType } from '../../http/io.js';
import { jsonDepthWithin, tooDeepMessage } from '../../http/json-depth.js';
import type { OrdersQuery } from '../../generated/orderbook/queries/orders-query.js';
import type { TradesQuery } from '../../generated/orderbook/queries/trades-query.js';
import type { EventsQuery } from '../../generated/orderbook/queries/events-query.js';
import type { TradesV2Query } from '../../generated/orderbook/queries/trades-v2-query.js';
import type { PageQuery } from '../../generated/orderbook/queries/page-query.js';
import type { OrderUids } from '../../generated/orderbook/order-uids.js';
import type { OrdersFilter, PageFilter } from '../usecases/queries/orders.js';
import type { TradesFilter } from '../usecases/queries/trades.js';
import type { EventStreamQuery } from '../../generated/orderbook/queries/event-stream-query.js';
import type { StreamRequest } from '../live/event-stream.js';
import { decodeOrderCursor, type OrderCursor } from '../read/order-cursor.js';

const ordersQuery = validator<OrdersQuery>('orderbook/queries/orders-query.schema.json');
const tradesQuery = validator<TradesQuery>('orderbook/queries/trades-query.schema.json');
const tradesV2Query = validator<TradesV2Query>('orderbook/queries/trades-v2-query.schema.json');
const pageQuery = validator<PageQuery>('orderbook/queries/page-query.schema.json');
const orderUids = validator<OrderUids>('orderbook/order-uids.schema.json');
const eventsQuery = validator<EventsQuery>('orderbook/queries/events-query.schema.json');
const streamQuery = validator<EventStreamQuery>('orderbook/queries/event-stream-query.schema.json');

/**
 * koa gives repeated parameters as arrays; the API takes each at most once. The copy has no prototype, so
 * that `?__proto__=1` is a parameter like any other (and refused as unknown), not a prototype swap.
 */
export function singleQuery(query: Context['query']): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [key, value] of Object.entries(query)) {
    if (Array.isArray(value)) throw orderbookErrors.invalidOrderData(`query parameter ${key} is given more than once`);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

export function parseOrdersQuery(ctx: Context): OrdersFilter {
  const q = singleQuery(ctx.query);
  if (!ordersQuery(q)) throw orderbookErrors.fromSchema(ordersQuery.errors, 'query');
  return {
    owner: q.owner?.toLowerCase(),
    sellToken: q.sellToken?.toLowerCase(),
    buyToken: q.buyToken?.toLowerCase(),
    includeFullyExecuted: q.includeFullyExecuted === 'true',
    includeInvalidated: q.includeInvalidated === 'true',
    includeInsufficientBalance: q.includeInsufficientBalance === 'true',
    minValidTo: q.minValidTo === undefined ? undefined : Number(q.minValidTo),
    limit: Number(q.limit ?? ORDERS_MAX_LIMIT),
    after: q.cursor === undefined ? undefined : orderCursor(q.cursor),
  };
}

/** GET /api/v1/orders: pages of at most this many orders read, and as many by default. */
export const ORDERS_MAX_LIMIT = 1000;

function orderCursor(text: string): OrderCursor {
  const cursor = decodeOrderCursor(text);
  if (!cursor) throw orderbookErrors.invalidOrderData('cursor is not one this service gave (take it from the Link header of the previous page)');
  return cursor;
}

export const TRADES_DEFAULT_LIMIT = 100;

export function parseTradesQuery(ctx: Context): TradesFilter {
  const q = singleQuery(ctx.query);
  if (!tradesQuery(q)) throw orderbookErrors.fromSchema(tradesQuery.errors, 'query');
  return {
    owner: q.owner?.toLowerCase(),
    orderUid: q.orderUid?.toLowerCase(),
    offset: Number(q.offset ?? 0),
    limit: Number(q.limit ?? TRADES_DEFAULT_LIMIT),
  };
}

/** GET /api/v1/events: at most this many events a page, and as many by default. */
export const EVENTS_MAX_LIMIT = 1000;

export function parseEventsQuery(ctx: Context): { after: number; limit: number } {
  const q = singleQuery(ctx.query);
  if (!eventsQuery(q)) throw orderbookErrors.fromSchema(eventsQuery.errors, 'query');
  return { after: Number(q.after ?? 0), limit: Number(q.limit ?? EVENTS_MAX_LIMIT) };
}

export interface BodyLimits {
  maxBodyBytes: number;
  maxJsonDepth: number;
}

/** A JSON request body (POST, DELETE), at most `maxBodyBytes` bytes and `maxJsonDepth` levels deep. */
export async function jsonBody(ctx: Context, { maxBodyBytes, maxJsonDepth }: BodyLimits): Promise<unknown> {
  const type = ctx.get('Content-Type');
  if (!isJsonContentType(type)) {
    throw orderbookErrors.invalidOrderData(`Content-Type must be application/json, got ${type ? `"${type}"` : 'none'}`);
  }
  const raw = await readBody(ctx.req, maxBodyBytes);
  if (!jsonDepthWithin(raw, maxJsonDepth)) throw orderbookErrors.invalidOrderData(tooDeepMessage('the body', maxJsonDepth));
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw orderbookErrors.invalidOrderData(`the body is not JSON: ${(err as Error).message}`);
  }
}

// Today's API (cowprotocol/services): pages of 10 by default, at most 1000.
export const PAGE_DEFAULT_LIMIT = 10;
export const PAGE_MAX_LIMIT = 1000;

function pageOf(q: { offset?: string; limit?: string }): PageFilter {
  const limit = Number(q.limit ?? PAGE_DEFAULT_LIMIT);
  if (limit < 1 || limit > PAGE_MAX_LIMIT) throw orderbookErrors.invalidLimit(`The pagination limit is [1,${PAGE_MAX_LIMIT}].`);
  return { offset: Number(q.offset ?? 0), limit };
}

/** offset and limit of GET /api/v1/account/{owner}/orders. */
export function parsePageQuery(ctx: Context): PageFilter {
  const q = singleQuery(ctx.query);
  if (!pageQuery(q)) throw orderbookErrors.fromSchema(pageQuery.errors, 'query');
  return pageOf(q);
}

/** GET /api/v2/trades: exactly one of owner and orderUid (InvalidTradeFilter), a page (InvalidLimit). */
export function parseTradesV2Query(ctx: Context): TradesFilter {
  const q = singleQuery(ctx.query);
  if (!tradesV2Query(q)) throw orderbookErrors.fromSchema(tradesV2Query.errors, 'query');
  if ((q.owner === undefined) === (q.orderUid === undefined)) {
    throw orderbookErrors.invalidTradeFilter('Must specify exactly one of owner and orderUid.');
  }
  return { owner: q.owner?.toLowerCase(), orderUid: q.orderUid?.toLowerCase(), ...pageOf(q) };
}

/** An address in a path: lowercase (checksummed ones are matched case-insensitively), else InvalidAddress. */
export function parseAddress(value: string): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw orderbookErrors.invalidAddress(value);
  return value.toLowerCase();
}

export function parseTxHash(value: string): string {
  if (!/^0x[0-9a-fA-F]{64}$/.test(value)) throw orderbookErrors.invalidTxHash(value);
  return value.toLowerCase();
}

/** The body of POST /api/v1/orders/by_uids: at most 128 UIDs. */
export function parseOrderUids(body: unknown): string[] {
  if (!orderUids(body)) throw orderbookErrors.fromSchema(orderUids.errors, 'orderUids');
  return body;
}

const POSITION = /^[0-9]{1,15}$/;

/** The query and Last-Event-ID of GET /api/v1/events/stream, or the 400 saying what is wrong. */
export function parseStreamRequest(query: Context['query'], lastEventId: string | undefined): StreamRequest {
  const q = singleQuery(query);
  if (!streamQuery(q)) throw orderbookErrors.fromSchema(streamQuery.errors, 'query');
  if (lastEventId !== undefined && !POSITION.test(lastEventId.trim())) {
    throw orderbookErrors.invalidOrderData(`Last-Event-ID must be an event position (a non-negative integer), got "${lastEventId.slice(0, 40)}"`);
  }
  const from = lastEventId !== undefined ? lastEventId.trim() : q.after;
  return {
    after: from === undefined ? undefined : Number(from),
    filter: {
      ownerHex: q.owner?.slice(2).toLowerCase(),
      orderUid: q.orderUid?.toLowerCase(),
      types: q.type ? new Set(q.type.split(',')) : undefined,
    },
  };
}
