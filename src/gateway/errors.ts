/**
 * The gateway's one error type and its catalogue. Every failure the gateway itself produces is an RpcError
 * naming an entry of GATEWAY_ERRORS, the one place its HTTP statuses and JSON-RPC 2.0 codes are written
 * (docs/gateway.md's status table is held to it by a test); errors are made by the constructors below,
 * and channels turn them into responses in one place (`errorResponse`). Errors returned by an upstream are
 * not RpcErrors: they are relayed as they came (see relay.ts).
 */
import type { JsonRpcErrorObject } from '../generated/jsonrpc/response.js';
import { PayloadTooLargeError, RequestAbortedError } from '../http/io.js';
import { AccessRefusal, type RefusalKind } from '../access/errors.js';
import type { ListenerRefusal } from '../http/server.js';
import { logger } from '../shared/logger.js';

export interface GatewayErrorEntry {
  /** The HTTP status of the answer (a WebSocket frame carries only the code). */
  status: number;
  /** The JSON-RPC error code. */
  code: number;
  /** When it is given, in a line. */
  when: string;
}

/** Every refusal and failure of the gateway's own. A client's mistake is never 5xx. */
export const GATEWAY_ERRORS = {
  parse: { status: 400, code: -32700, when: 'the body, a WebSocket frame or the GET params is not JSON' },
  invalidRequest: { status: 400, code: -32600, when: 'an invalid envelope, body, batch or Content-Type' },
  invalidParams: { status: 400, code: -32602, when: 'params that do not fit the method' },
  methodNotAllowed: { status: 404, code: -32601, when: 'a method not permitted on that channel' },
  noSubscriptionUpstream: { status: 400, code: -32601, when: 'eth_subscribe of a kind only a WebSocket upstream serves, on a network without one' },
  unknownNetwork: { status: 404, code: -32600, when: 'an unknown network, or a Host naming none' },
  notFound: { status: 404, code: -32600, when: 'an unknown path' },
  wrongHttpMethod: { status: 405, code: -32600, when: 'a wrong HTTP method (with Allow)' },
  bodyTooLarge: { status: 413, code: -32600, when: 'a body over MAX_BODY_BYTES' },
  upgradeRequired: { status: 426, code: -32600, when: 'a plain GET on a WebSocket address' },
  unauthorized: { status: 401, code: -32600, when: "a missing or unknown API key where keys are required, or an operator route without the operator's credential" },
  misdirected: { status: 421, code: -32600, when: 'a Host the service does not answer for (ALLOWED_HOSTS)' },
  rateLimited: { status: 429, code: -32005, when: 'a rate limit spent, the subscriptions of a connection, or the WebSocket connections of a client (WS_MAX_PER_CLIENT)' },
  serviceFull: { status: 503, code: -32005, when: 'the service holds its most WebSocket connections (WS_MAX_CONNECTIONS)' },
  upstreamFailed: { status: 502, code: -32603, when: 'the upstream failed, or (REST) answered an error object' },
  upstreamBusy: { status: 503, code: -32603, when: 'every upstream of the network is busy (answered 429 or a rate-limit error)' },
  internal: { status: 500, code: -32603, when: "the gateway's own fault" },
  starting: { status: 503, code: -32603, when: 'the service is still starting' },
  // What the service's listeners refuse before the gateway sees the request, in its shape.
  malformedRequest: { status: 400, code: -32600, when: 'HTTP that cannot be read, or an HTTP/1.1 request without Host' },
  requestTimeout: { status: 408, code: -32600, when: 'a request not received in time' },
  headersTooLarge: { status: 431, code: -32600, when: 'headers over 16 KB' },
} as const satisfies Record<string, GatewayErrorEntry>;

export type GatewayErrorName = keyof typeof GATEWAY_ERRORS;

export class RpcError extends Error {
  readonly status: number;
  readonly code: number;

  constructor(
    /** Its catalogue entry. */
    readonly refusal: GatewayErrorName,
    message: string,
    readonly data?: unknown,
    /** Headers the HTTP answer carries besides the body (Allow for a 405). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = GATEWAY_ERRORS[refusal].status;
    this.code = GATEWAY_ERRORS[refusal].code;
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
 * upstream may have received and acted on it. 'busy': the upstream refused the call for now (HTTP 429, its
 * rate limit), without acting on it. 'too-large': its answer exceeded MAX_UPSTREAM_ANSWER_BYTES.
 */
export type UpstreamFailureReason =
  | 'unreachable'
  | 'connection-lost'
  | 'timeout'
  | 'bad-response'
  | 'http-status'
  | 'closed'
  | 'busy'
  | 'too-large';

export class UpstreamError extends RpcError {
  constructor(
    readonly reason: UpstreamFailureReason,
    readonly upstream: string,
    detail: string,
    /** The upstream's HTTP status, for 'http-status' and 'busy'. */
    readonly httpStatus?: number,
    /** For 'busy': how long the upstream asked to be left alone (its Retry-After), when it said. */
    readonly retryAfterMs?: number,
  ) {
    // Every upstream busy is a moment's unavailability of the service (503); any other fault is a bad gateway.
    super(reason === 'busy' ? 'upstreamBusy' : 'upstreamFailed', `upstream ${upstream} ${detail}`);
  }
}

export const rpcErrors = {
  parse: (detail: string) => new RpcError('parse', `Parse error: ${detail}`),
  invalidRequest: (detail: string) => new RpcError('invalidRequest', `Invalid request: ${detail}`),
  invalidParams: (detail: string) => new RpcError('invalidParams', `Invalid params: ${detail}`),
  /** A logs filter (eth_subscribe logs, eth_getLogs served from the head) that does not fit. */
  invalidLogsFilter: (detail: string) => new RpcError('invalidParams', `invalid logs filter: ${detail}`),
  /** params of eth_subscribe that its kind does not take. */
  subscriptionParams: (detail: string) => new RpcError('invalidParams', detail),
  methodNotAllowed: (method: string, where: string) =>
    new RpcError('methodNotAllowed', `the method ${method} does not exist/is not available ${where}`),
  noSubscriptionUpstream: (kind: string, network: string) =>
    new RpcError('noSubscriptionUpstream', `eth_subscribe ${kind} needs a WebSocket upstream; network ${network} has none`),
  unknownNetwork: (network: string, known: string[]) =>
    new RpcError('unknownNetwork', `unknown network "${network}"; known networks: ${known.join(', ')}`, { networks: known }),
  /** POST / or /ws on the main port whose Host does not start with a network name. */
  unknownHostNetwork: (host: string | undefined, known: string[]) =>
    new RpcError(
      'unknownNetwork',
      `the Host ${host ? `"${host}"` : '(none)'} names no network: use <network>.<domain>, one of ${known.join(', ')}`,
      { networks: known },
    ),
  notFound: (path: string) => new RpcError('notFound', `no route for ${path}`),
  upgradeRequired: () => new RpcError('upgradeRequired', 'this address takes a WebSocket upgrade'),
  wrongHttpMethod: (allowed: string[]) =>
    new RpcError('wrongHttpMethod', `use HTTP ${allowed.join(' or ')} here`, undefined, { allow: allowed.join(', ') }),
  /** A WebSocket handshake ws refuses: not GET (405), or no valid key or version (400). */
  handshakeRefused: (method: string | undefined, detail: string) =>
    method === 'GET'
      ? new RpcError('invalidRequest', `Invalid request: WebSocket handshake refused: ${detail}`, undefined, { 'sec-websocket-version': '13, 8' })
      : new RpcError('wrongHttpMethod', `Invalid request: WebSocket handshake refused: ${detail}`, undefined, { allow: 'GET' }),
  contentType: (got: string | undefined) =>
    new RpcError('invalidRequest', `Content-Type must be application/json, got ${got ? `"${got}"` : 'none'}`),
  bodyTooLarge: (limit: number) => new RpcError('bodyTooLarge', `request body exceeds ${limit} bytes`),
  batchTooLarge: (limit: number) => new RpcError('invalidRequest', `batch exceeds ${limit} requests`),
  rateLimited: (detail: string, retryAfterSeconds?: number) =>
    new RpcError('rateLimited', `rate limit exceeded: ${detail}`, retryAfterSeconds === undefined ? undefined : { retryAfterSeconds }),
  tooManySubscriptions: (limit: number) => new RpcError('rateLimited', `at most ${limit} subscriptions per connection`),
  /** A WebSocket upgrade past the client's connections (WS_MAX_PER_CLIENT). */
  tooManyConnections: (description: string) => new RpcError('rateLimited', description),
  /** A WebSocket upgrade past every client's connections together (WS_MAX_CONNECTIONS). */
  serviceFull: (description: string) => new RpcError('serviceFull', description),
  unauthorized: (detail: string) => new RpcError('unauthorized', detail),
  starting: () => new RpcError('starting', 'the service is starting'),
  internal: () => new RpcError('internal', 'Internal error'),
};

/** The catalogue entry of each refusal the service's listeners make before the gateway sees a request. */
export const LISTENER_REFUSALS = {
  malformedRequest: 'malformedRequest',
  requestTimeout: 'requestTimeout',
  headersTooLarge: 'headersTooLarge',
  noWebSocketEndpoint: 'notFound',
} as const satisfies Record<ListenerRefusal, GatewayErrorName>;

/** A refusal of the listeners (src/http/server.ts says which, and why) as the gateway answers it. */
export function listenerRefusal(kind: ListenerRefusal, description: string): RpcError {
  return new RpcError(LISTENER_REFUSALS[kind], `Invalid request: ${description}`);
}

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

/** The catalogue entry of each refusal of the access layer (src/access). */
export const ACCESS_REFUSALS = {
  unauthorized: 'unauthorized',
  rateLimited: 'rateLimited',
  misdirected: 'misdirected',
} as const satisfies Record<RefusalKind, GatewayErrorName>;

/** The access layer's refusal as the gateway answers it (a spent limit with retryAfterSeconds). */
export function fromRefusal(refusal: AccessRefusal): RpcError {
  const data = refusal.kind === 'rateLimited' && refusal.retryAfterSeconds !== undefined ? { retryAfterSeconds: refusal.retryAfterSeconds } : undefined;
  return new RpcError(ACCESS_REFUSALS[refusal.kind], refusal.message, data, refusal.headers());
}
