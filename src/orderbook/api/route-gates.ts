/**
 * Two classes of routes (route-costs.ts) cost the event loop in proportion to how many run together, and
 * per-client rate limits do not stop a flood from many addresses:
 * - the listings (a page of orders, trades or events, an account's orders, by UIDs, a user's surplus, the
 *   projections) in proportion to their page;
 * - the quotes (POST /api/v1/quote, a token's fee, a native price), each cheap, but many of them wait for
 *   the same chain answers and then all finish in one turn of the loop.
 * So, all clients together, each class runs at most its CONCURRENCY at once with its QUEUE waiting for
 * their turn (LISTING_CONCURRENCY and LISTING_QUEUE, QUOTE_CONCURRENCY and QUOTE_QUEUE); one more is
 * refused 503 ServiceUnavailable with Retry-After, and every other route is served meanwhile.
 */
import type { Context, Next } from 'koa';
import { orderbookErrors } from '../domain/errors.js';
import { GateFull, WorkGate } from '../../shared/work-gate.js';
import { routeClass } from './route-costs.js';

export interface GateLimits {
  /** Requests of the class handled at once. */
  concurrency: number;
  /** Requests of the class that may wait; one more is refused. */
  queue: number;
}

export interface RouteGateLimits {
  list: GateLimits;
  quote: GateLimits;
}

const VARIABLES: Record<keyof RouteGateLimits, [what: string, concurrency: string, queue: string]> = {
  list: ['listings', 'LISTING_CONCURRENCY', 'LISTING_QUEUE'],
  quote: ['quotes', 'QUOTE_CONCURRENCY', 'QUOTE_QUEUE'],
};

/** Koa middleware: the gated classes' routes each through their class's gate; the others straight on. */
export function routeGates(limits: RouteGateLimits) {
  const gates = { list: new WorkGate(limits.list), quote: new WorkGate(limits.quote) };
  return async (ctx: Context, next: Next): Promise<void> => {
    const cls = routeClass(ctx.method, ctx.path);
    if (cls !== 'list' && cls !== 'quote') return next();
    try {
      await gates[cls].run(next);
    } catch (err) {
      if (!(err instanceof GateFull)) throw err;
      const [what, concurrency, queue] = VARIABLES[cls];
      ctx.set('Retry-After', '1');
      throw orderbookErrors.busy(
        `${limits[cls].concurrency} ${what} are being handled and ${limits[cls].queue} wait (${concurrency}, ${queue}): try again`,
      );
    }
  };
}
