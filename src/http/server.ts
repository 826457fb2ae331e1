/**
 * The service's HTTP listeners: they listen, find the part a request belongs to, and hand it over.
 * - /healthz (ready: may take traffic), /livez (live: the process serves) and /metrics are the service's
 *   own; /status too, when given;
 * - /api/... belongs to the order book;
 * - the explorer's page and files (GET / asking for HTML, /explorer/...) when the Host names no network;
 * - every other path belongs to the gateway (src/gateway/http-front.ts says which of them it serves).
 * A network's dedicated listener (PORT_<NETWORK>) hands everything to that network's part. What no part saw
 * (unreadable HTTP, an HTTP/1.1 request without Host) and what a part's handler throws are answered here, in
 * the shape of the part the path belongs to. This module knows no part's internals: they come as HttpParts.
 *
 * Before any part sees a request, the access layer (src/access) runs on it (but on /healthz and /livez, which
 * load balancers probe by address and which cost nothing): the Host must be allowed (421),
 * the caller is identified (address, API key) and charged the route's cost (429) before its body is read,
 * and the operator routes (/metrics, /status, and those a part names) need the operator's credential (401).
 * The browser policy is set here too: CORS per part, and security headers on every answer but the
 * gateway's (docs/operations.md, "Access").
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { registry } from '../shared/metrics.js';
import type { ServerConfig } from '../generated/config.js';
import type { AccessLayer } from '../access/access.js';
import { AccessRefusal } from '../access/errors.js';
import { sendJson, endSocketWithJson } from './io.js';
import { allowAnyOrigin, apiCors, securityHeaders } from './browser-policy.js';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * What the listeners refuse before a part sees the request. The listeners choose no status: the part the
 * request belongs to answers each in its own shape, with the status its error catalogue gives it.
 */
export type ListenerRefusal = 'malformedRequest' | 'requestTimeout' | 'headersTooLarge' | 'noWebSocketEndpoint';

/** A part's answer to a refusal: its status and JSON body. */
export interface PartAnswer {
  status: number;
  body: string;
}

/** A part of the service behind the listeners (the gateway, the order book). */
export interface HttpPart {
  /** Answers a request of this part (its path and query already split). */
  serve(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): void | Promise<void>;
  /** WebSocket upgrades; a part without it gets none. */
  upgrade?(req: IncomingMessage, socket: Duplex, head: Buffer, path: string): void;
  /** Answers `err` in this part's shape (an error it does not know is logged and answered 500). */
  fail(res: ServerResponse, err: unknown): void;
  /** Answers 503: the service is starting. */
  unavailable(res: ServerResponse): void;
  /** A refusal made before this part saw the request, with the status and body of this part's catalogue. */
  refusal(kind: ListenerRefusal, description: string): PartAnswer;
  /** The access layer's refusal, with the status and body of this part's catalogue. */
  accessRefusal(refusal: AccessRefusal): PartAnswer;
  /** Whether a request with this Host header is the part's own (the explorer then stands aside). */
  claimsHost?(host: string | undefined): boolean;
  /** The API key a request gives, where this part takes one (in its path or a header). */
  keyOf?(req: IncomingMessage, path: string): string | undefined;
  /** What a request costs against the caller's rate limits (absent: 1). */
  costOf?(method: string, path: string): number;
  /** Whether this is one of the part's operator routes (the operator's credential needed). */
  isOperatorRoute?(method: string, path: string): boolean;
}

/** What every listener applies: the access layer and the server's bounds. */
export interface ListenerOptions {
  access: AccessLayer;
  server: ServerConfig;
}

export interface HealthReport {
  ready: boolean;
  [part: string]: unknown;
}

/** What the main listener serves. It listens before the parts run, so that /healthz can say 503 meanwhile. */
export interface ServerParts {
  /** Every path the others do not take. */
  gateway: HttpPart;
  /** /api/...; absent: those paths go to the gateway part too. */
  orderbook?: HttpPart;
  /** The explorer's page and files (GET / asking for HTML, /explorer/..., /favicon.ico); true when it answered. */
  explorer?: (req: IncomingMessage, res: ServerResponse, path: string) => boolean;
  /** False while the service starts: every request but /healthz is then answered 503 by the gateway part. */
  started(): boolean;
  health(): Promise<HealthReport>;
  /** GET /status (docs/gateway-head.md); absent: the gateway part answers the path. */
  status?(): unknown;
}

function splitUrl(raw: string | undefined): { path: string; query: URLSearchParams } {
  const url = raw ?? '/';
  const q = url.indexOf('?');
  return q === -1
    ? { path: url, query: new URLSearchParams() }
    : { path: url.slice(0, q), query: new URLSearchParams(url.slice(q + 1)) };
}

const isOrderbookPath = (path: string) => path.startsWith('/api/');

/** The part a path belongs to, for answers given outside the parts' handlers. */
function partOf(parts: Pick<ServerParts, 'gateway' | 'orderbook'>, path: string): HttpPart {
  return isOrderbookPath(path) && parts.orderbook ? parts.orderbook : parts.gateway;
}

/**
 * Node's HTTP parser refuses what it cannot read (headers over 16 KB, broken chunked framing,
 * Content-Length with Transfer-Encoding, bytes a URL may not hold, ...) before any handler runs; by
 * default with an empty body. This answers in the same JSON shape as every other refusal, the part chosen
 * by the request line when the parser got that far.
 */
function refuseUnreadable(parts: Pick<ServerParts, 'gateway' | 'orderbook'>) {
  return (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex): void => {
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const kind: ListenerRefusal =
      err.code === 'HPE_HEADER_OVERFLOW' ? 'headersTooLarge' : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'requestTimeout' : 'malformedRequest';
    const description =
      kind === 'headersTooLarge'
        ? 'the request headers are too large'
        : kind === 'requestTimeout'
          ? 'the request was not received in time'
          : `the HTTP request could not be parsed (${err.message.replace(/^Parse Error: /, '')})`;
    const requestLine = err.rawPacket?.subarray(0, 256).toString('latin1') ?? '';
    const path = requestLine.split(' ')[1] ?? '';
    const answer = partOf(parts, path).refusal(kind, description);
    endSocketWithJson(socket, answer.status, answer.body);
  };
}

/** HTTP/1.1 requires Host; Node's own refusal of a request without one has no body. */
function refuseWithoutHost(req: IncomingMessage, res: ServerResponse, part: HttpPart): boolean {
  if (req.headers.host !== undefined || req.httpVersion !== '1.1') return false;
  const answer = part.refusal('malformedRequest', 'an HTTP/1.1 request needs a Host header');
  sendJson(res, answer.status, answer.body, { connection: 'close' });
  return true;
}

/**
 * Runs a request handler so that nothing it throws synchronously, nor any promise it returns rejecting,
 * can end the process: the request gets the 500 of the part it belongs to and the service goes on.
 */
function guarded(parts: Pick<ServerParts, 'gateway' | 'orderbook'>, handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>): Handler {
  return (req, res) => {
    const fail = (err: unknown) => partOf(parts, splitUrl(req.url).path).fail(res, err);
    try {
      const work = handler(req, res);
      if (work) work.catch(fail);
    } catch (err) {
      fail(err);
    }
  };
}

/**
 * Options of every listener: Host is checked by refuseWithoutHost, so that its refusal has a body; the
 * timeouts bound what a slow client holds (a connection without whole headers, a body that trickles), and
 * are checked every second rather than Node's 30 s.
 */
function serverOptions(bounds: ServerConfig) {
  return {
    requireHostHeader: false,
    headersTimeout: bounds.headersTimeoutMs,
    requestTimeout: bounds.requestTimeoutMs,
    keepAliveTimeout: bounds.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, bounds.headersTimeoutMs),
  };
}

function bounded(server: Server, bounds: ServerConfig): Server {
  // Past the cap, new connections are closed as they arrive (Node's 'drop').
  server.maxConnections = bounds.maxConnections;
  return server;
}

/** The service's own operator routes; parts name theirs (isOperatorRoute). */
const isOwnOperatorRoute = (path: string) => path === '/metrics' || path === '/status';

/**
 * Answers an access refusal in the shape of `part`. A request whose body was not read yet is answered with
 * Connection: close, so that the body is never read at all (Node would otherwise read it to keep the
 * connection alive).
 */
function refuse(res: ServerResponse, part: HttpPart, err: unknown): void {
  if (!(err instanceof AccessRefusal)) return part.fail(res, err);
  if (res.headersSent) return void res.destroy();
  const req = res.req;
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  const headers = err.headers();
  const answer = part.accessRefusal(err);
  sendJson(res, answer.status, answer.body, hasBody && !req.complete ? { ...headers, connection: 'close' } : headers);
}

/**
 * Identifies the caller, checks the operator's credential on operator routes and charges the route's cost.
 * Every request is charged but an operator's own on an operator route (a metrics scraper is not an
 * anonymous client); an attempt without the credential is charged, and answered 429 rather than 401 once
 * the caller's budget is spent. Gives true when the request may go on, false when it was refused (and
 * answered), or a promise of either when a limit had to be asked.
 */
function admit(access: AccessLayer, req: IncomingMessage, res: ServerResponse, path: string, part: HttpPart, operator: boolean): boolean | Promise<boolean> {
  let charged: Promise<void> | undefined;
  let refusal: unknown;
  try {
    // Operator routes take the operator's credential, not a key (on a network's Host, /metrics is no key).
    const keyed = access.usesKeys && !operator;
    const client = access.identify(req, keyed ? part.keyOf?.(req, path) : undefined);
    if (operator) {
      try {
        access.checkOperator(req, client);
        return true;
      } catch (err) {
        refusal = err;
      }
    }
    charged = access.charge(client, part.costOf ? part.costOf(req.method ?? 'GET', path) : 1);
  } catch (err) {
    refuse(res, part, err);
    return false;
  }
  if (!charged) {
    if (refusal === undefined) return true;
    refuse(res, part, refusal);
    return false;
  }
  return charged.then(
    () => {
      if (refusal === undefined) return true;
      refuse(res, part, refusal);
      return false;
    },
    (err: unknown) => {
      refuse(res, part, err);
      return false;
    },
  );
}

/** Refuses an upgrade the access layer refuses; true when it did. */
function refuseUpgrade(access: AccessLayer, req: IncomingMessage, socket: Duplex, path: string, part: HttpPart): Promise<boolean> | boolean {
  const fail = (err: unknown): true => {
    if (!(err instanceof AccessRefusal)) throw err;
    const answer = part.accessRefusal(err);
    endSocketWithJson(socket, answer.status, answer.body, err.headers());
    return true;
  };
  try {
    access.checkHost(req.headers.host);
    const charged = access.charge(access.identify(req, access.usesKeys ? part.keyOf?.(req, path) : undefined), 1);
    return charged ? charged.then(() => false, fail) : false;
  } catch (err) {
    return fail(err);
  }
}

function onUpgrade(access: AccessLayer, partFor: (path: string) => HttpPart) {
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const { path } = splitUrl(req.url);
    const part = partFor(path);
    const go = (refused: boolean) => {
      if (refused) return;
      if (!part.upgrade) {
        const answer = part.refusal('noWebSocketEndpoint', `no WebSocket endpoint at ${path}`);
        return endSocketWithJson(socket, answer.status, answer.body);
      }
      part.upgrade(req, socket, head, path);
    };
    let refused: Promise<boolean> | boolean;
    try {
      refused = refuseUpgrade(access, req, socket, path, part);
    } catch {
      return void socket.destroy();
    }
    if (typeof refused === 'boolean') return go(refused);
    refused.then(go, () => socket.destroy());
  };
}

export function createMainServer(parts: ServerParts, options: ListenerOptions): Server {
  const { access } = options;
  const server = createServer(serverOptions(options.server), guarded(parts, (req, res) => {
    const { path, query } = splitUrl(req.url);
    const part = partOf(parts, path);
    if (refuseWithoutHost(req, res, part)) return;
    // Load balancers probe health by address: it is answered whatever the Host, and charged to no one.
    if (path === '/healthz') return health(parts, res);
    if (path === '/livez') return sendJson(res, 200, LIVE);
    try {
      access.checkHost(req.headers.host);
    } catch (err) {
      return refuse(res, part, err);
    }
    const toOrderbook = isOrderbookPath(path) && parts.orderbook !== undefined;
    const operator = isOwnOperatorRoute(path) || (toOrderbook && parts.orderbook!.isOperatorRoute?.(req.method ?? 'GET', path) === true);
    if (toOrderbook || operator) securityHeaders(res);
    if (operator) {
      // No CORS: a page on another site may not use the operator's routes, nor read their answers.
    } else if (toOrderbook) {
      if (apiCors(req, res)) return;
    } else if (allowAnyOrigin(req, res)) {
      return;
    }
    if (!parts.started()) return part.unavailable(res);
    const admitted = admit(access, req, res, path, part, operator);
    if (admitted === true) return dispatch(parts, req, res, path, query, toOrderbook);
    if (admitted !== false) return admitted.then((ok) => (ok ? dispatch(parts, req, res, path, query, toOrderbook) : undefined));
  }));
  server.on('clientError', refuseUnreadable(parts));
  server.on('upgrade', onUpgrade(access, (path) => partOf(parts, path)));
  return bounded(server, options.server);
}

/** Hands an admitted request on the main listener to what serves its path. */
function dispatch(parts: ServerParts, req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, toOrderbook: boolean): void | Promise<void> {
  if (path === '/metrics') return metrics(res);
  if (path === '/status' && parts.status) return sendJson(res, 200, JSON.stringify(parts.status()));
  if (toOrderbook) return parts.orderbook!.serve(req, res, path, query);
  if (parts.explorer && !parts.gateway.claimsHost?.(req.headers.host) && parts.explorer(req, res, path)) return;
  return parts.gateway.serve(req, res, path, query);
}

/** A listener of one part only (a network's own port): every request and upgrade goes to it. */
export function createPartServer(part: HttpPart, options: ListenerOptions): Server {
  const { access } = options;
  const parts = { gateway: part };
  const server = createServer(serverOptions(options.server), guarded(parts, (req, res) => {
    try {
      access.checkHost(req.headers.host);
    } catch (err) {
      return refuse(res, part, err);
    }
    if (allowAnyOrigin(req, res)) return;
    const { path, query } = splitUrl(req.url);
    const admitted = admit(access, req, res, path, part, false);
    if (admitted === true) return part.serve(req, res, path, query);
    if (admitted !== false) return admitted.then((ok) => (ok ? part.serve(req, res, path, query) : undefined));
  }));
  server.on('clientError', refuseUnreadable(parts));
  server.on('upgrade', onUpgrade(access, () => part));
  return bounded(server, options.server);
}

/** GET /livez: the process answers, whatever its parts' state (a load balancer's liveness probe). */
const LIVE = JSON.stringify({ live: true });

async function health(parts: ServerParts, res: ServerResponse): Promise<void> {
  const report = await parts.health();
  sendJson(res, report.ready ? 200 : 503, JSON.stringify(report));
}

async function metrics(res: ServerResponse): Promise<void> {
  const text = await registry.metrics();
  res.writeHead(200, { 'content-type': registry.contentType });
  res.end(text);
}
