/**
 * The one place where the order book's errors become HTTP answers: an OrderbookError (domain/errors.ts)
 * is answered with its catalogue entry's status and CoW's `{errorType, description}`. What only HTTP knows
 * (an oversized body, a method a path does not take, a request the listeners refused before the order book
 * saw it) is made an OrderbookError of the catalogue here too; anything else is the service's own fault,
 * logged with its stack and answered 500 InternalServerError without detail.
 */
import type { Context, Next } from 'koa';
import { OrderbookError, orderbookErrors, statusOfCode, type OrderbookErrorCode } from '../domain/errors.js';
import type { OrderbookErrorBody } from '../../generated/orderbook/error.js';
import { PayloadTooLargeError, RequestAbortedError } from '../../http/io.js';
import type { ListenerRefusal } from '../../http/server.js';
import { AccessRefusal, type RefusalKind } from '../../access/errors.js';
import { logger } from '../../shared/logger.js';

export interface ErrorAnswer {
  status: number;
  body: OrderbookErrorBody;
}

/** The HTTP status of an order book error: its catalogue entry's. */
export function statusOf(error: OrderbookError): number {
  return statusOfCode(error.code);
}

export function answerOf(err: unknown): ErrorAnswer {
  if (err instanceof OrderbookError) return { status: statusOf(err), body: err.toBody() };
  if (err instanceof PayloadTooLargeError) return answerOf(orderbookErrors.payloadTooLarge(err.limit));
  if (err instanceof RequestAbortedError) return answerOf(orderbookErrors.invalidOrderData(err.message));
  if (err instanceof AccessRefusal) return answerOf(accessRefusal(err));
  logger.error({ err }, 'unexpected failure in the order book API');
  return answerOf(orderbookErrors.internal());
}

/** The catalogue entry of each refusal the service's listeners make before the order book sees a request. */
export const LISTENER_REFUSALS = {
  malformedRequest: 'MalformedRequest',
  requestTimeout: 'RequestTimeout',
  headersTooLarge: 'HeadersTooLarge',
  noWebSocketEndpoint: 'NotFound',
} as const satisfies Record<ListenerRefusal, OrderbookErrorCode>;

/** The catalogue entry of each refusal of the access layer (src/access). */
export const ACCESS_REFUSALS = {
  unauthorized: 'Unauthorized',
  rateLimited: 'TooManyRequests',
  misdirected: 'MisdirectedRequest',
} as const satisfies Record<RefusalKind, OrderbookErrorCode>;

/** A refusal of the listeners (src/http/server.ts says which, and why) as the order book answers it. */
export function listenerRefusal(kind: ListenerRefusal, description: string): OrderbookError {
  return new OrderbookError(LISTENER_REFUSALS[kind], description);
}

/** The access layer's refusal as the order book answers it. */
export function accessRefusal(refusal: AccessRefusal): OrderbookError {
  return new OrderbookError(ACCESS_REFUSALS[refusal.kind], refusal.message);
}

/** The statuses koa and its router leave on a request nothing routed (read here, never answered as they are). */
const UNROUTED = { methodNotAllowed: 405, notImplemented: 501, notFound: 404 } as const;

export async function errorMiddleware(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
    // The router answers 405 for a method this path does not take, and 501 (no body) for a method it
    // implements nowhere (TRACE, PROPFIND, ...): to a client both are the same mistake.
    if (ctx.status === UNROUTED.methodNotAllowed || ctx.status === UNROUTED.notImplemented) {
      const allow = ctx.response.get('Allow');
      if (!allow) throw orderbookErrors.notFound(`route ${ctx.method} ${ctx.path}`);
      throw orderbookErrors.methodNotAllowed(ctx.method, allow);
    }
    if (ctx.status === UNROUTED.notFound && ctx.body === undefined) throw orderbookErrors.notFound(`route ${ctx.method} ${ctx.path}`);
  } catch (err) {
    const answer = answerOf(err);
    ctx.status = answer.status;
    ctx.body = answer.body;
  }
}
