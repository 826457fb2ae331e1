/**
 * The listings (the routes of the list class in route-costs.ts: a page of orders, trades or events, an
 * account's orders, by UIDs, a user's surplus, the projections) cost the event loop in proportion to their
 * page, and per-client rate limits do not stop a flood from many addresses. So, all clients together, at
 * most LISTING_CONCURRENCY of them are built at once and LISTING_QUEUE wait for their turn; one more is
 * refused 503 ServiceUnavailable with Retry-After, and every other route is served meanwhile.
 */
import type { Context, Next } from 'koa';
import { orderbookErrors } from '../domain/errors.js';
import { GateFull, WorkGate } from '../../shared/work-gate.js';
import { routeClass } from './route-costs.js';

export interface ListingLimits {
  /** LISTING_CONCURRENCY. */
  concurrency: number;
  /** LISTING_QUEUE. */
  queue: number;
}

/** Koa middleware: the list class's routes through one gate; the others straight on. */
export function listingGate(limits: ListingLimits) {
  const gate = new WorkGate(limits);
  return async (ctx: Context, next: Next): Promise<void> => {
    if (routeClass(ctx.method, ctx.path) !== 'list') return next();
    try {
      await gate.run(next);
    } catch (err) {
      if (!(err instanceof GateFull)) throw err;
      ctx.set('Retry-After', '1');
      throw orderbookErrors.busy(
        `${limits.concurrency} listings are being built and ${limits.queue} wait (LISTING_CONCURRENCY, LISTING_QUEUE): try again`,
      );
    }
  };
}
