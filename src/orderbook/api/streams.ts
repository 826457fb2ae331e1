/**
 * The koa side of the streaming endpoints (GET /api/v1/events/stream, /api/v1/solver/stream): the client is
 * given a place (stream-admission.ts; else the 429 is thrown before anything is written), the response is
 * taken from koa and opened as Server-Sent Events, and live/ streams into it (event-stream.ts,
 * solver-stream.ts), which knows nothing of koa.
 */
import type { Context } from 'koa';
import type { LogFeed } from '../live/log-feed.js';
import { SseResponse, type SseLimits } from '../live/sse.js';
import { streamEvents, type StreamRequest } from '../live/event-stream.js';
import { streamSolverViews, type SolverViewWatch } from '../live/solver-stream.js';
import type { StreamAdmission } from './stream-admission.js';

/** The request's response as an event stream, once `admission` gave its client a place; the place is kept until it closes. */
function openStream(ctx: Context, limits: SseLimits, admission: StreamAdmission): SseResponse {
  const release = admission.admit(ctx);
  // The response is written by the stream, not by koa (and is not a 404 for the error middleware).
  ctx.status = 200;
  ctx.respond = false;
  const sse = new SseResponse(ctx.res, limits);
  sse.onClose(release);
  return sse;
}

/** GET /api/v1/events/stream, `request` parsed from the query and Last-Event-ID (params.ts). */
export function serveEventStream(ctx: Context, request: StreamRequest, feed: LogFeed, limits: SseLimits, admission: StreamAdmission): Promise<void> {
  return streamEvents(openStream(ctx, limits, admission), request, feed, limits);
}

/** GET /api/v1/solver/stream. */
export function serveSolverStream(ctx: Context, watch: SolverViewWatch, limits: SseLimits, admission: StreamAdmission): Promise<void> {
  return streamSolverViews(openStream(ctx, limits, admission), watch);
}
