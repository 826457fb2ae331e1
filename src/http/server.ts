/**
 * The service's HTTP listeners and how a request finds its handler:
 * - Host whose first label is a network (mainnet.localhost): POST / and GET /ws belong to that network
 *   (also POST /<key> and GET /ws/<key> with an API key);
 * - /v1/jsonrpc/...: the REST channel, and /v1/jsonrpc/:network/ws for WebSocket (also /v1/<key>/jsonrpc/...);
 * - /api/...: the order book; /healthz and /metrics;
 * - a network's dedicated listener (PORT_<NETWORK>): every request belongs to that network.
 * Gateway requests then go through gateway/requests.ts (API key, request id, metrics).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Gateway } from '../gateway/gateway.js';
import type { WebSocketChannel } from '../gateway/channels/websocket.js';
import { REST_PREFIX, failRequest, serveGateway, splitRestKey, networkPathKey, type GatewayRoute } from '../gateway/requests.js';
import { errorResponse } from '../gateway/jsonrpc.js';
import { asRpcError, rpcErrors, RpcError } from '../gateway/errors.js';
import { registry } from '../metrics.js';
import { sendJson, presetHeader, endSocketWithJson } from './io.js';
import { logger } from '../logger.js';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface HealthReport {
  ready: boolean;
  [part: string]: unknown;
}

/**
 * What the main listener serves. It listens before the parts exist, so that /healthz can say 503 while
 * the chains start; until `gateway` is set every other request is answered 503 too.
 */
export interface ServerParts {
  gateway?: Gateway;
  ws?: WebSocketChannel;
  /** The order book's handler for /api/...; absent while it starts, or always when it is off. */
  orderbook?: Handler;
  /** The explorer's page and files (GET / asking for HTML, /explorer/..., /favicon.ico); true when it answered. */
  explorer?: (req: IncomingMessage, res: ServerResponse, path: string) => boolean;
  health(): Promise<HealthReport>;
  /** GET /status (docs/gateway-head.md); absent: 404. */
  status?(): unknown;
}

const starting = new RpcError(503, -32603, 'the service is starting');

function splitUrl(raw: string | undefined): { path: string; query: URLSearchParams } {
  const url = raw ?? '/';
  const q = url.indexOf('?');
  return q === -1
    ? { path: url, query: new URLSearchParams() }
    : { path: url.slice(0, q), query: new URLSearchParams(url.slice(q + 1)) };
}

/** The first label of the Host header, lowercase ('' without one). */
function hostLabel(host: string | undefined): string {
  const end = host ? host.search(/[.:]/) : -1;
  return host ? (end === -1 ? host : host.slice(0, end)).toLowerCase() : '';
}

/** The network named by the first label of the Host header, or the 404 naming the known ones. */
function hostNetwork(gw: Gateway, host: string | undefined): string {
  const label = hostLabel(host);
  if (!gw.has(label)) throw rpcErrors.unknownHostNetwork(host, gw.networkNames);
  return label;
}

const isWsPath = (path: string) => path === '/ws' || path.startsWith('/ws/');

/**
 * The gateway route of a request on the main listener, if it is one: REST (with or without a key), or by
 * Host name POST / and POST /<key>. / and /ws throw the 404 naming the networks when the Host names none;
 * /ws without an upgrade is 426.
 */
function gatewayRoute(gw: Gateway, path: string, host: string | undefined): GatewayRoute | undefined {
  const rest = splitRestKey(path);
  if (rest) return { kind: 'rest', ...rest };
  if (path === '/') return { kind: 'network', network: hostNetwork(gw, host) };
  if (isWsPath(path)) {
    hostNetwork(gw, host);
    throw rpcErrors.upgradeRequired();
  }
  const key = networkPathKey(path);
  if (key === undefined) return undefined;
  // /<something> on a Host that names no network is just an unknown path.
  const network = hostLabel(host);
  return gw.has(network) ? { kind: 'network', network, key } : undefined;
}

/** /v1/jsonrpc/:network/ws (a path splitRestKey gave) → network */
function restWsNetwork(path: string): string | undefined {
  if (!path.endsWith('/ws')) return undefined;
  const segments = path.slice(REST_PREFIX.length).split('/');
  return segments.length === 2 ? segments[0] : undefined;
}

function refuseUpgrade(socket: Duplex, error: RpcError): void {
  endSocketWithJson(socket, error.status, JSON.stringify(errorResponse(null, error)), error.headers);
}

const isOrderbookPath = (path: string) => path.startsWith('/api/');

/** A refusal made before any part saw the request, in the shape of the part its path belongs to. */
function refusalBody(path: string, status: number, description: string): string {
  if (isOrderbookPath(path)) return JSON.stringify({ errorType: REFUSAL_TYPES[status] ?? 'BadRequest', description });
  return JSON.stringify(errorResponse(null, new RpcError(status, -32600, `Invalid request: ${description}`)));
}

const REFUSAL_TYPES: Record<number, string> = { 400: 'MalformedRequest', 408: 'RequestTimeout', 431: 'HeadersTooLarge' };

/**
 * Node's HTTP parser refuses what it cannot read (headers over 16 KB, broken chunked framing,
 * Content-Length with Transfer-Encoding, bytes a URL may not hold, ...) before any handler runs; by
 * default with an empty body. This answers in the same JSON shape as every other refusal, the part chosen
 * by the request line when the parser got that far.
 */
function refuseUnreadable(err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const description =
    status === 431
      ? 'the request headers are too large'
      : status === 408
        ? 'the request was not received in time'
        : `the HTTP request could not be parsed (${err.message.replace(/^Parse Error: /, '')})`;
  const requestLine = err.rawPacket?.subarray(0, 256).toString('latin1') ?? '';
  const path = requestLine.split(' ')[1] ?? '';
  endSocketWithJson(socket, status, refusalBody(path, status, description));
}

/** HTTP/1.1 requires Host; Node's own refusal of a request without one has no body. */
function refuseWithoutHost(req: IncomingMessage, res: ServerResponse, path: string): boolean {
  if (req.headers.host !== undefined || req.httpVersion !== '1.1') return false;
  sendJson(res, 400, refusalBody(path, 400, 'an HTTP/1.1 request needs a Host header'), { connection: 'close' });
  return true;
}

/**
 * Runs a request handler so that nothing it throws synchronously can end the process: the request gets
 * the 500 of the part it belongs to (the error is logged there) and the service goes on.
 */
function guarded(handler: Handler): Handler {
  return (req, res) => {
    try {
      handler(req, res);
    } catch (err) {
      logger.error({ err, url: req.url }, 'request handler failed');
      if (!res.headersSent && isOrderbookPath(splitUrl(req.url).path)) {
        sendOrderbookError(res, 500, 'InternalServerError', 'internal server error');
      } else {
        failRequest(res, rpcErrors.internal());
      }
    }
  };
}

/** Options of every listener: Host is checked by refuseWithoutHost, so that its refusal has a body. */
const LISTENER_OPTIONS = { requireHostHeader: false };

/**
 * The gateway answers browsers from any origin, as Infura does: JSON-RPC calls carry no cookies, so a dapp
 * page may use {network_url} directly. Gives true when the request was a CORS preflight, now answered.
 */
function allowAnyOrigin(req: IncomingMessage, res: ServerResponse): boolean {
  // Preset rather than res.setHeader: keeps sendJson's writeHead on Node's fast path.
  presetHeader(res, 'access-control-allow-origin', '*');
  if (req.method !== 'OPTIONS') return false;
  res.writeHead(204, {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, POST, OPTIONS',
    'access-control-allow-headers': req.headers['access-control-request-headers'] ?? 'content-type',
    'access-control-max-age': '86400',
  });
  res.end();
  return true;
}

export function createMainServer(parts: ServerParts): Server {
  const server = createServer(LISTENER_OPTIONS, guarded((req, res) => {
    const { path, query } = splitUrl(req.url);
    if (refuseWithoutHost(req, res, path)) return;
    const gw = parts.gateway;
    const isGatewayPath = path !== '/healthz' && path !== '/metrics' && !path.startsWith('/api/');
    if (isGatewayPath && allowAnyOrigin(req, res)) return;
    let work: Promise<void> | void = undefined;
    let route: GatewayRoute | undefined;
    if (path === '/healthz') work = health(parts, res);
    else if (!gw) work = failRequest(res, starting);
    else if (path === '/metrics') work = metrics(res);
    else if (path === '/status' && parts.status) sendJson(res, 200, JSON.stringify(parts.status()));
    else if (path.startsWith('/api/')) work = parts.orderbook ? parts.orderbook(req, res) : orderbookAbsent(gw.config.orderbook.enabled, res);
    else if (parts.explorer && !gw.has(hostLabel(req.headers.host)) && parts.explorer(req, res, path)) return;
    else {
      try {
        route = gatewayRoute(gw, path, req.headers.host);
      } catch (err) {
        return failRequest(res, err);
      }
      if (route) serveGateway(gw, route, req, res, query);
      else work = failRequest(res, rpcErrors.notFound(path));
    }
    if (work) work.catch((err) => failRequest(res, err));
  }));
  server.on('clientError', refuseUnreadable);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const { path } = splitUrl(req.url);
    const { gateway: gw, ws } = parts;
    if (!gw || !ws) return refuseUpgrade(socket, starting);
    const rest = splitRestKey(path);
    let network: string | undefined;
    try {
      network = rest ? restWsNetwork(rest.path) : isWsPath(path) ? hostNetwork(gw, req.headers.host) : undefined;
    } catch (err) {
      return refuseUpgrade(socket, asRpcError(err));
    }
    if (!network) return refuseUpgrade(socket, rpcErrors.notFound(`no WebSocket endpoint at ${path}`));
    if (!gw.has(network)) return refuseUpgrade(socket, rpcErrors.unknownNetwork(network, gw.networkNames));
    upgradeGateway(gw, ws, network, rest ? rest.key : networkPathKey(path), req, socket, head);
  });
  return server;
}

/** A listener of one network only, so that clients can use http://host:port as that network's URL. */
export function createNetworkServer(gw: Gateway, ws: WebSocketChannel, network: string): Server {
  const server = createServer(LISTENER_OPTIONS, guarded((req, res) => {
    if (allowAnyOrigin(req, res)) return;
    const { path, query } = splitUrl(req.url);
    if (req.method === 'GET' && isWsPath(path)) return failRequest(res, rpcErrors.upgradeRequired());
    serveGateway(gw, { kind: 'network', network, key: networkPathKey(path) }, req, res, query);
  }));
  server.on('clientError', refuseUnreadable);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
    upgradeGateway(gw, ws, network, networkPathKey(splitUrl(req.url).path), req, socket, head),
  );
  return server;
}

/** Hands a WebSocket upgrade to the channel once the caller's API key is accepted (else 401). */
function upgradeGateway(
  gw: Gateway,
  ws: WebSocketChannel,
  network: string,
  key: string | undefined,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): void {
  let caller;
  try {
    caller = gw.access.caller(req, key);
  } catch (err) {
    return refuseUpgrade(socket, asRpcError(err));
  }
  ws.upgrade(network, req, socket, head, caller);
}

/** An answer in the order book's shape, `{errorType, description}`, given before the order book has the request. */
export function sendOrderbookError(res: ServerResponse, status: number, errorType: string, description: string): void {
  sendJson(res, status, JSON.stringify({ errorType, description }));
}

/** /api/... without an order book, in the order book's own error shape. */
function orderbookAbsent(enabled: boolean, res: ServerResponse): void {
  if (enabled) sendOrderbookError(res, 503, 'ServiceUnavailable', 'the order book is starting');
  else sendOrderbookError(res, 404, 'NotFound', 'the order book is off on this instance (ORDERBOOK=off)');
}

async function health(parts: ServerParts, res: ServerResponse): Promise<void> {
  const report = await parts.health();
  sendJson(res, report.ready ? 200 : 503, JSON.stringify(report));
}

async function metrics(res: ServerResponse): Promise<void> {
  const text = await registry.metrics();
  res.writeHead(200, { 'content-type': registry.contentType });
  res.end(text);
}
