/**
 * The order book's HTTP API (koa), wire-compatible with the CoW Protocol order book under /api/v1, plus
 * the auditors' endpoints (events, projections) and the OpenAPI document.
 */
import Koa, { type Context } from 'koa';
import Router from '@koa/router';
import type { Book } from '../usecases/book.js';
import { placeOrder } from '../usecases/place-order.js';
import { cancelOrder } from '../usecases/cancel-order.js';
import { cancelOrders } from '../usecases/cancel-orders.js';
import { putAppData as registerAppData } from '../usecases/put-app-data.js';
import { quote } from '../usecases/quote.js';
import { getAppData } from '../usecases/queries/app-data.js';
import {
  accountOrders,
  competitionStatus,
  getOrder,
  listOrders,
  orderEvents,
  ordersByUids,
  transactionOrders,
  type FoundOrder,
} from '../usecases/queries/orders.js';
import { listTrades, listTradesV2, totalSurplus } from '../usecases/queries/trades.js';
import { feeQuote, nativePrice } from '../usecases/queries/prices.js';
import { auction, solvableOrders } from '../usecases/queries/auction.js';
import { projectionsStatus, readLog } from '../usecases/queries/audit.js';
import { signingDomain } from '../usecases/queries/domain.js';
import { errorMiddleware } from './errors.js';
import { orderbookErrors } from '../domain/errors.js';
import {
  parseOrdersQuery,
  parseTradesQuery,
  parseEventsQuery,
  jsonBody,
  parseAddress,
  parseOrderUids,
  parsePageQuery,
  parseTradesV2Query,
  parseTxHash,
  type BodyLimits,
  parseStreamRequest,
} from './params.js';
import { serviceVersion } from './version.js';
import { presentFound } from './present-order.js';
import { auctionBody } from './encoding/auction.js';
import { openApiDocument } from './openapi.js';
import type { LogFeed } from '../live/log-feed.js';
import type { SseLimits } from '../live/sse.js';
import type { StreamAdmission } from './stream-admission.js';
import type { SolverViewWatch } from '../live/solver-stream.js';
import type { ReplayVerifier } from '../live/verify-replay.js';
import { serveEventStream, serveSolverStream } from './streams.js';
import { encodeOrderCursor } from '../read/order-cursor.js';
import { piecesStream, sendJsonArray } from './json-pieces.js';
import { routeGates, type RouteGateLimits } from './route-gates.js';

/** What the streaming endpoints (live/, admitted by stream-admission.ts) and the replay check need. */
export interface LiveParts {
  feed: LogFeed;
  solverViews: SolverViewWatch;
  replay: ReplayVerifier;
  limits: SseLimits;
  /** The caps on open streams (per client, as the access layer identified it, and in all). */
  admission: StreamAdmission;
}

export interface ApiOptions extends BodyLimits {
  live: LiveParts;
  /** Least time between two starts of a replay (REPLAY_COOLDOWN_SECONDS); absent: none. */
  replayCooldownSeconds?: number;
  /** How many listings and quotes are handled at once and wait (LISTING_*, QUOTE_* CONCURRENCY and QUEUE). */
  gates: RouteGateLimits;
}

/**
 * POST /api/v1/projections/replay (an operator route: a full replay on a worker, then live digests on the
 * main thread): one at a time, and at most one start per cooldown; sooner is 429 with Retry-After.
 */
function replayGate(cooldownSeconds: number) {
  let last = -Infinity;
  let running = false;
  return async <T>(ctx: Koa.Context, run: () => Promise<T>): Promise<T | undefined> => {
    const waitMs = running ? cooldownSeconds * 1000 : last + cooldownSeconds * 1000 - Date.now();
    if (running || waitMs > 0) {
      const seconds = Math.max(1, Math.ceil(waitMs / 1000));
      ctx.set('Retry-After', String(seconds));
      throw orderbookErrors.tooManyRequests(
        running ? 'a replay is running; one at a time' : `a replay ran less than ${cooldownSeconds} s ago (REPLAY_COOLDOWN_SECONDS): try again in ${seconds} s`,
      );
    }
    running = true;
    last = Date.now();
    try {
      return await run();
    } finally {
      running = false;
    }
  };
}

export function createOrderbookApi(book: Book, options: ApiOptions): Koa {
  const { live } = options;
  const replayOnce = replayGate(options.replayCooldownSeconds ?? 0);
  const app = new Koa();
  const router = new Router({ prefix: '/api/v1' });
  const present = (found: FoundOrder) => presentFound(found, book.settlement);

  router.post('/orders', async (ctx) => {
    const uid = await placeOrder(book, await jsonBody(ctx, options));
    ctx.status = 201;
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(uid);
  });

  // Today's API (cowprotocol/services' openapi.yml), beside the seed's endpoints.
  router.delete('/orders', async (ctx) => {
    await cancelOrders(book, await jsonBody(ctx, options));
    ctx.type = 'application/json';
    ctx.body = JSON.stringify('Cancelled');
  });

  router.post('/orders/by_uids', async (ctx) => {
    const entries = await ordersByUids(book, parseOrderUids(await jsonBody(ctx, options)));
    await sendJsonArray(ctx, entries.map((entry) => ('order' in entry ? { order: present(entry.order) } : entry)));
  });

  router.get('/orders/:uid/status', async (ctx) => {
    ctx.body = await competitionStatus(book, ctx.params.uid);
  });

  router.post('/quote', async (ctx) => {
    ctx.body = await quote(book, await jsonBody(ctx, options));
  });

  const putAppData = async (ctx: Koa.ParameterizedContext, hash: string | null) => {
    const result = await registerAppData(book, hash, await jsonBody(ctx, options));
    ctx.status = result.created ? 201 : 200;
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(result.hash);
  };
  router.put('/app_data', (ctx) => putAppData(ctx, null));
  router.put('/app_data/:hash', (ctx) => putAppData(ctx, ctx.params.hash));

  router.get('/app_data/:hash', async (ctx) => {
    ctx.body = await getAppData(book, ctx.params.hash);
  });

  router.get('/account/:owner/orders', async (ctx) => {
    await sendJsonArray(ctx, (await accountOrders(book, parseAddress(ctx.params.owner), parsePageQuery(ctx))).map(present));
  });

  router.get('/transactions/:txHash/orders', async (ctx) => {
    await sendJsonArray(ctx, (await transactionOrders(book, parseTxHash(ctx.params.txHash))).map(present));
  });

  router.get('/token/:token/native_price', async (ctx) => {
    ctx.body = await nativePrice(book, parseAddress(ctx.params.token));
  });

  router.get('/users/:address/total_surplus', async (ctx) => {
    ctx.body = { totalSurplus: (await totalSurplus(book, parseAddress(ctx.params.address))).toString() };
  });

  router.get('/version', (ctx) => {
    ctx.type = 'text/plain';
    ctx.body = serviceVersion();
  });

  router.get('/auction', async (ctx) => {
    const found = await auction(book);
    if (notModified(ctx, found.etag)) return;
    const body = auctionBody(found);
    ctx.body = piecesStream(body.buffers);
    ctx.type = 'application/json';
    ctx.length = body.length;
  });

  router.get('/orders', async (ctx) => {
    const page = await listOrders(book, parseOrdersQuery(ctx));
    // The next page: the same query from the cursor (RFC 8288 Link, as GitHub's API pages).
    if (page.next) {
      const query = new URLSearchParams(ctx.querystring);
      query.set('cursor', encodeOrderCursor(page.next));
      ctx.set('Link', `<${ctx.path}?${query}>; rel="next"`);
    }
    await sendJsonArray(ctx, page.orders.map(present));
  });

  router.get('/orders/:uid', async (ctx) => {
    ctx.body = present(await getOrder(book, ctx.params.uid));
  });

  router.delete('/orders/:uid', async (ctx) => {
    await cancelOrder(book, ctx.params.uid, await jsonBody(ctx, options));
    ctx.status = 200;
    ctx.body = '';
  });

  router.get('/orders/:uid/events', async (ctx) => {
    ctx.body = await orderEvents(book, ctx.params.uid);
  });

  router.get('/solvable_orders', async (ctx) => {
    const answer = await solvableOrders(book);
    if (notModified(ctx, answer.etag)) return;
    // Many solvers poll the same large answer: it is compressed once, when built, and sent in its pieces.
    const gzip = ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
    const { buffers, length } = gzip ? await answer.compressed() : answer.body;
    if (gzip) ctx.set('Content-Encoding', 'gzip');
    ctx.body = piecesStream(buffers);
    ctx.type = 'application/json';
    ctx.length = length;
  });

  router.get('/trades', async (ctx) => {
    await sendJsonArray(ctx, await listTrades(book, parseTradesQuery(ctx)));
  });

  router.get('/tokens/:sellToken/fee', async (ctx) => {
    ctx.body = await feeQuote(book, ctx.params.sellToken);
  });

  router.get('/domain', (ctx) => {
    ctx.body = signingDomain(book);
  });

  router.get('/events/stream', (ctx) =>
    serveEventStream(ctx, parseStreamRequest(ctx.query, ctx.get('Last-Event-ID') || undefined), live.feed, live.limits, live.admission),
  );

  router.get('/solver/stream', (ctx) => serveSolverStream(ctx, live.solverViews, live.limits, live.admission));

  router.post('/projections/replay', async (ctx) => {
    ctx.body = await replayOnce(ctx, () => live.replay.verify());
  });

  router.get('/events', async (ctx) => {
    const { after, limit } = parseEventsQuery(ctx);
    await sendJsonArray(ctx, await readLog(book, after, limit));
  });

  router.get('/projections', async (ctx) => {
    ctx.body = await projectionsStatus(book);
  });

  router.get('/openapi.json', (ctx) => {
    ctx.body = openApiDocument();
  });

  const v2 = new Router({ prefix: '/api/v2' });
  v2.get('/trades', async (ctx) => {
    await sendJsonArray(ctx, await listTradesV2(book, parseTradesV2Query(ctx)));
  });

  app.use(errorMiddleware);
  app.use(routeGates(options.gates));
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.use(v2.routes());
  app.use(v2.allowedMethods());
  return app;
}

/**
 * The solvers' polled answers (solvable_orders, auction): a JSON answer tagged `etag` that clients revalidate;
 * true when the client has it already, answered 304.
 */
function notModified(ctx: Context, etag: string): boolean {
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', 'no-cache');
  ctx.type = 'application/json';
  if (ctx.get('If-None-Match') !== etag) return false;
  ctx.status = 304;
  return true;
}
