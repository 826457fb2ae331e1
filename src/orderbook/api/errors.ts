/**
 * The one place where the order book's errors become HTTP answers. Domain errors (domain/errors.ts) carry a
 * kind and CoW's `{errorType, description}`; their status comes from STATUS_OF_KIND here. What only HTTP
 * knows (an oversized body 413, a method a path does not take 405) is answered here too; anything else is
 * the service's own fault, logged with its stack and answered 500 InternalServerError without detail.
 */
import type { Context, Next } from 'koa';
import { OrderbookError, orderbookErrors, type OrderbookErrorKind } from '../domain/errors.js';
import type { OrderbookErrorBody } from '../../generated/orderbook/error.js';
import { PayloadTooLargeError, RequestAbortedError } from '../../http/io.js';
import { logger } from '../../shared/logger.js';

const STATUS_OF_KIND: Record<OrderbookErrorKind, number> = {
  rejected: 400,
  unauthorized: 401,
  notFound: 404,
  rateLimited: 429,
  internal: 500,
  unavailable: 503,
};

export interface ErrorAnswer {
  status: number;
  body: OrderbookErrorBody;
}

/** The HTTP status of a domain error. */
export function statusOf(error: OrderbookError): number {
  return STATUS_OF_KIND[error.kind];
}

/** Thrown inside the API for what only HTTP refuses; carries its status. */
class HttpRefusal extends Error {
  constructor(readonly answer: ErrorAnswer) {
    super(answer.body.description);
  }
}

export function answerOf(err: unknown): ErrorAnswer {
  if (err instanceof OrderbookError) return { status: statusOf(err), body: err.toBody() };
  if (err instanceof HttpRefusal) return err.answer;
  if (err instanceof PayloadTooLargeError) {
    return { status: 413, body: { errorType: 'PayloadTooLarge', description: `request body exceeds ${err.limit} bytes` } };
  }
  if (err instanceof RequestAbortedError) return answerOf(orderbookErrors.invalidOrderData(err.message));
  logger.error({ err }, 'unexpected failure in the order book API');
  return answerOf(orderbookErrors.internal());
}

export async function errorMiddleware(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
    // The router answers 501 (no body) for a method it implements nowhere (TRACE, PROPFIND, ...): to a
    // client that is the same mistake as a method this path does not take.
    if (ctx.status === 405 || ctx.status === 501) {
      const allow = ctx.response.get('Allow');
      if (!allow) throw orderbookErrors.notFound(`route ${ctx.method} ${ctx.path}`);
      const description = `${ctx.method} is not allowed here; allowed: ${allow}`;
      throw new HttpRefusal({ status: 405, body: { errorType: 'MethodNotAllowed', description } });
    }
    if (ctx.status === 404 && ctx.body === undefined) throw orderbookErrors.notFound(`route ${ctx.method} ${ctx.path}`);
  } catch (err) {
    const answer = answerOf(err);
    ctx.status = answer.status;
    ctx.body = answer.body;
  }
}
