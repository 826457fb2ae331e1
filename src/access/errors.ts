/**
 * The access layer's one error type: a request refused before any part handled it. Each part answers it
 * in its own shape (a JSON-RPC error for the gateway, CoW's {errorType, description} for the order book),
 * with Retry-After when it says when to come back.
 */
export type RefusalKind = 'unauthorized' | 'rateLimited' | 'misdirected';

const STATUS: Record<RefusalKind, number> = { unauthorized: 401, rateLimited: 429, misdirected: 421 };

export class AccessRefusal extends Error {
  readonly status: number;

  constructor(
    readonly kind: RefusalKind,
    message: string,
    /** For rateLimited: seconds until the client may try again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.status = STATUS[kind];
  }

  /** The headers the answer carries besides the body. */
  headers(): Record<string, string> | undefined {
    if (this.retryAfterSeconds !== undefined) return { 'retry-after': String(this.retryAfterSeconds) };
    if (this.kind === 'unauthorized') return { 'www-authenticate': 'Bearer' };
    return undefined;
  }
}
