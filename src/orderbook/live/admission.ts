/**
 * Who may open a stream (GET /api/v1/events/stream, /api/v1/solver/stream): at most STREAM_MAX_PER_CLIENT
 * per client address and STREAM_MAX_CONNECTIONS in all, each stream holding its place until it ends. Past
 * either, the request is refused before anything is read from the log: 429 in CoW's shape
 * ({errorType: "TooManyRequests", description}) with Retry-After.
 */
import type { Context } from 'koa';
import type { IncomingMessage } from 'node:http';
import { ConnectionCap, type ConnectionCapLimits } from '../../http/connection-cap.js';
import { orderbookErrors } from '../domain/errors.js';

/** Retry-After of a refused stream: a stream ends when its client goes, which takes a moment at least. */
const RETRY_AFTER_SECONDS = 5;

export class StreamAdmission {
  private readonly cap: ConnectionCap;

  constructor(
    limits: ConnectionCapLimits,
    /** The client address of a request (TRUST_PROXY applied). */
    private readonly addressOf: (req: IncomingMessage) => string,
  ) {
    this.cap = new ConnectionCap(limits, 'event streams', { perClient: 'STREAM_MAX_PER_CLIENT', total: 'STREAM_MAX_CONNECTIONS' });
  }

  /** Streams open now. */
  get open(): number {
    return this.cap.count();
  }

  /** Takes a place for the request's client, or throws the 429 (Retry-After set on `ctx`). */
  admit(ctx: Context): () => void {
    const admission = this.cap.admit(this.addressOf(ctx.req));
    if (admission.admitted) return admission.release;
    ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
    throw orderbookErrors.tooManyRequests(admission.description);
  }
}
