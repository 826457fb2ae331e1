/**
 * The access layer's one error type: a request refused before any part handled it. Each part answers it
 * in its own shape (a JSON-RPC error for the gateway, CoW's {errorType, description} for the order book),
 * with the status its error catalogue gives the kind (401, 429, 421), and Retry-After when it says when to
 * come back.
 */
export type RefusalKind = 'unauthorized' | 'rateLimited' | 'misdirected';

export class AccessRefusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    message: string,
    /** For rateLimited: seconds until the client may try again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  /** The headers the answer carries besides the body. */
  headers(): Record<string, string> | undefined {
    if (this.retryAfterSeconds !== undefined) return { 'retry-after': String(this.retryAfterSeconds) };
    if (this.kind === 'unauthorized') return { 'www-authenticate': 'Bearer' };
    return undefined;
  }
}
