/** Query strings and bodies of the order book API, checked against schemas/orderbook/queries. */
import type { Context } from 'koa';
import { validator } from '../../schemas.js';
import { orderbookErrors } from '../domain/errors.js';
import { readBody, isJsonContentType } from '../../http/io.js';
import { jsonDepthWithin, tooDeepMessage } from '../../http/json-depth.js';
import type { OrdersQuery } from '../../generated/orderbook/queries/orders-query.js';
import type { TradesQuery } from '../../generated/orderbook/queries/trades-query.js';
import type { EventsQuery } from '../../generated/orderbook/queries/events-query.js';
import type { OrdersFilter, TradesFilter } from '../orderbook.js';

const ordersQuery = validator<OrdersQuery>('orderbook/queries/orders-query.schema.json');
const tradesQuery = validator<TradesQuery>('orderbook/queries/trades-query.schema.json');
const eventsQuery = validator<EventsQuery>('orderbook/queries/events-query.schema.json');

/**
 * koa gives repeated parameters as arrays; the API takes each at most once. The copy has no prototype, so
 * that `?__proto__=1` is a parameter like any other (and refused as unknown), not a prototype swap.
 */
function single(ctx: Context): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [key, value] of Object.entries(ctx.query)) {
    if (Array.isArray(value)) throw orderbookErrors.invalidOrderData(`query parameter ${key} is given more than once`);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

export function parseOrdersQuery(ctx: Context): OrdersFilter {
  const q = single(ctx);
  if (!ordersQuery(q)) throw orderbookErrors.fromSchema(ordersQuery.errors, 'query');
  return {
    owner: q.owner?.toLowerCase(),
    sellToken: q.sellToken?.toLowerCase(),
    buyToken: q.buyToken?.toLowerCase(),
    includeFullyExecuted: q.includeFullyExecuted === 'true',
    includeInvalidated: q.includeInvalidated === 'true',
    includeInsufficientBalance: q.includeInsufficientBalance === 'true',
    minValidTo: q.minValidTo === undefined ? undefined : Number(q.minValidTo),
  };
}

export const TRADES_DEFAULT_LIMIT = 100;

export function parseTradesQuery(ctx: Context): TradesFilter {
  const q = single(ctx);
  if (!tradesQuery(q)) throw orderbookErrors.fromSchema(tradesQuery.errors, 'query');
  return {
    owner: q.owner?.toLowerCase(),
    orderUid: q.orderUid?.toLowerCase(),
    offset: Number(q.offset ?? 0),
    limit: Number(q.limit ?? TRADES_DEFAULT_LIMIT),
  };
}

export function parseEventsQuery(ctx: Context): { after: number; limit: number } {
  const q = single(ctx);
  if (!eventsQuery(q)) throw orderbookErrors.fromSchema(eventsQuery.errors, 'query');
  return { after: Number(q.after ?? 0), limit: Number(q.limit ?? 1000) };
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
