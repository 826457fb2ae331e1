/**
 * The gateway's one error type. Every failure the gateway itself produces is an RpcError carrying the HTTP
 * status of the specification's table and a JSON-RPC 2.0 error code; channels turn it into a response in
 * one place (`errorResponse`). Errors returned by an upstream are not RpcErrors: they are relayed as they
 * came (see relay.ts).
 */
import type { JsonRpcErrorObject } from '../generated/jsonrpc/response.js';
import { PayloadTooLargeError, RequestAbortedError } from '../http/io.js';
import { AccessRefusal } from '../access/errors.js';
import { logger } from '../shared/logger.js';

export class RpcError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly data?: unknown,
    /** Headers the HTTP answer carries besides the body (Allow for a 405). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }

  toObject(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/**
 * Why an upstream call failed. 'unreachable' means the request never left the gateway (no connection could
 * be made), so even a transaction may be sent elsewhere; after 'connection-lost', 'timeout' or 'closed' the
 * upstream may have received and acted on it.
 */
export type UpstreamFailureReason =
  | 'unreachable'
  | 'connection-lost'
  | 'timeout'
  | 'bad-response'
  | 'http-status'
  | 'closed';

export class UpstreamError extends RpcError {
  constructor(
    readonly reason: UpstreamFailureReason,
    readonly upstream: string,
    detail: string,
    /** The upstream's HTTP status, for 'http-status'. */
    readonly httpStatus?: number,
  ) {
    super(502, -32603, `upstream ${upstream} ${detail}`);
  }
}

export const rpcErrors = {
  parse: (detail: string) => new RpcError(400, -32700, `Parse error: ${detail}`),
  invalidRequest: (detail: string) => new RpcError(400, -32600, `Invalid request: ${detail}`),
  invalidParams: (detail: string) => new RpcError(400, -32602, `Invalid params: ${detail}`),
  methodNotAllowed: (method: string, where: string) =>
    new RpcError(404, -32601, `the method ${method} does not exist/is not available ${where}`),
  unknownNetwork: (network: string, known: string[]) =>
    new RpcError(404, -32600, `unknown network "${network}"; known networks: ${known.join(', ')}`, {
      networks: known,
    }),
  /** POST / or /ws on the main port whose Host does not start with a network name. */
  unknownHostNetwork: (host: string | undefined, known: string[]) =>
    new RpcError(
      404,
      -32600,
      `the Host ${host ? `"${host}"` : '(none)'} names no network: use <network>.<domain>, one of ${known.join(', ')}`,
      { networks: known },
    ),
  notFound: (path: string) => new RpcError(404, -32600, `no route for ${path}`),
  upgradeRequired: () => new RpcError(426, -32600, 'this address takes a WebSocket upgrade'),
  wrongHttpMethod: (allowed: string[]) =>
    new RpcError(405, -32600, `use HTTP ${allowed.join(' or ')} here`, undefined, { allow: allowed.join(', ') }),
  contentType: (got: string | undefined) =>
    new RpcError(400, -32600, `Content-Type must be application/json, got ${got ? `"${got}"` : 'none'}`),
  bodyTooLarge: (limit: number) => new RpcError(413, -32600, `request body exceeds ${limit} bytes`),
  batchTooLarge: (limit: number) => new RpcError(400, -32600, `batch exceeds ${limit} requests`),
  rateLimited: (detail: string, retryAfterSeconds?: number) =>
    new RpcError(429, -32005, `rate limit exceeded: ${detail}`, retryAfterSeconds === undefined ? undefined : { retryAfterSeconds }),
  unauthorized: (detail: string) => new RpcError(401, -32600, detail),
  internal: () => new RpcError(500, -32603, 'Internal error'),
};

/**
 * The status and body for anything thrown in the gateway. What is neither an RpcError nor an oversized body
 * is the gateway's own fault: logged with its stack, answered 500 with no detail.
 */
export function asRpcError(err: unknown): RpcError {
  if (err instanceof RpcError) return err;
  if (err instanceof PayloadTooLargeError) return rpcErrors.bodyTooLarge(err.limit);
  if (err instanceof RequestAbortedError) return rpcErrors.invalidRequest(err.message);
  if (err instanceof AccessRefusal) return fromRefusal(err);
  logger.error({ err }, 'unexpected failure in the gateway');
  return rpcErrors.internal();
}

/** The access layer's refusal as the gateway answers it (429 with -32005 and retryAfterSeconds). */
export function fromRefusal(refusal: AccessRefusal): RpcError {
  if (refusal.kind === 'rateLimited') {
    const data = refusal.retryAfterSeconds === undefined ? undefined : { retryAfterSeconds: refusal.retryAfterSeconds };
    return new RpcError(429, -32005, refusal.message, data, refusal.headers());
  }
  return new RpcError(refusal.status, -32600, refusal.message, undefined, refusal.headers());
}
