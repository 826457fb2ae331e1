/**
 * Who may open a stream (GET /api/v1/events/stream, /api/v1/solver/stream): at most STREAM_MAX_PER_CLIENT
 * per client and STREAM_MAX_CONNECTIONS in all, each stream holding its place until it ends. The client is
 * the one the access layer identified for the request before the order book saw it (clientOf: its address
 * through trusted proxies, an IPv6 one by its /64). Past either cap, the request is refused before anything
 * is read from the log: 429 in CoW's shape ({errorType: "TooManyRequests", description}) with Retry-After.
 */
import type { Context } from 'koa';
import { ConnectionCap, type ConnectionCapLimits } from '../../access/connection-cap.js';
import { clientOf } from '../../access/access.js';
import { orderbookErrors } from '../domain/errors.js';

/** Retry-After of a refused stream: a stream ends when its client goes, which takes a moment at least. */
const RETRY_AFTER_SECONDS = 5;

export class StreamAdmission {
  private readonly cap: ConnectionCap;

  constructor(limits: ConnectionCapLimits) {
    this.cap = new ConnectionCap(limits, 'event streams', { perClient: 'STREAM_MAX_PER_CLIENT', total: 'STREAM_MAX_CONNECTIONS' });
  }

  /** Streams open now. */
  get open(): number {
    return this.cap.count();
  }

  /** Takes a place for the request's client, or throws the 429 (Retry-After set on `ctx`). */
  admit(ctx: Context): () => void {
    const client = clientOf(ctx.req);
    // Every request reaches the order book through the listeners, which identify its caller first.
    if (!client) throw new Error('a stream request reached the order book without the access layer');
    const admission = this.cap.admit(client.limitId);
    if (admission.admitted) return admission.release;
    ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
    throw orderbookErrors.tooManyRequests(admission.description);
  }
}
