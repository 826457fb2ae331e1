/**
 * The one place where the order book's errors become HTTP answers: an OrderbookError carries its status
 * and CoW's `{errorType, description}` body; an oversized body is 413; anything else is the service's own
 * fault, logged with its stack and answered 500 InternalServerError without detail.
 */
import type { Context, Next } from 'koa';
import { OrderbookError, orderbookErrors } from '../domain/errors.js';
import { PayloadTooLargeError, RequestAbortedError } from '../../http/io.js';
import { logger } from '../../logger.js';

export function toOrderbookError(err: unknown): OrderbookError {
  if (err instanceof OrderbookError) return err;
  if (err instanceof PayloadTooLargeError) {
    return new OrderbookError(413, 'PayloadTooLarge', `request body exceeds ${err.limit} bytes`);
  }
  if (err instanceof RequestAbortedError) return orderbookErrors.invalidOrderData(err.message);
  logger.error({ err }, 'unexpected failure in the order book API');
  return orderbookErrors.internal();
}

export async function errorMiddleware(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
    // The router answers 501 (no body) for a method it implements nowhere (TRACE, PROPFIND, ...): to a
    // client that is the same mistake as a method this path does not take.
    if (ctx.status === 405 || ctx.status === 501) {
      const allow = ctx.response.get('Allow');
      if (!allow) throw orderbookErrors.notFound(`route ${ctx.method} ${ctx.path}`);
      throw new OrderbookError(405, 'MethodNotAllowed', `${ctx.method} is not allowed here; allowed: ${allow}`);
    }
    if (ctx.status === 404 && ctx.body === undefined) throw orderbookErrors.notFound(`route ${ctx.method} ${ctx.path}`);
  } catch (err) {
    const error = toOrderbookError(err);
    ctx.status = error.status;
    ctx.body = error.toBody();
  }
}
