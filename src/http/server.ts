/**
 * The service's HTTP listeners and how a request finds its handler:
 * - Host whose first label is a network (mainnet.localhost): POST / and GET /ws belong to that network
 *   (also POST /<key> and GET /ws/<key> with an API key);
 * - /v1/jsonrpc/...: the REST channel, and /v1/jsonrpc/:network/ws for WebSocket (also /v1/<key>/jsonrpc/...);
 * - /api/...: the order book; /healthz and /metrics;
 * - a network's dedicated listener (PORT_<NETWORK>): every request belongs to that network.
 * Gateway requests then go through gateway/requests.ts (API key, request id, metrics).
 */
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Gateway } from '../gateway/gateway.js';
import type { WebSocketChannel } from '../gateway/channels/websocket.js';
import { serveGateway, splitRestKey, networkPathKey, type GatewayRoute } from '../gateway/requests.js';
import { errorResponse } from '../gateway/jsonrpc.js';
import { asRpcError, rpcErrors, RpcError } from '../gateway/errors.js';
import { registry } from '../metrics.js';
import { sendJson } from './io.js';

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
  /** The order book's handler for /api/...; absent while the order book is not running. */
  orderbook?: Handler;
  health(): Promise<HealthReport>;
}

const starting = new RpcError(503, -32603, 'the service is starting');

const REST_PREFIX = '/v1/jsonrpc/';

function splitUrl(raw: string | undefined): { path: string; query: URLSearchParams } {
  const url = raw ?? '/';
  const q = url.indexOf('?');
  return q === -1
    ? { path: url, query: new URLSearchParams() }
    : { path: url.slice(0, q), query: new URLSearchParams(url.slice(q + 1)) };
}

/** The network named by the first label of the Host header, if any. */
function hostNetwork(gw: Gateway, host: string | undefined): string | undefined {
  if (!host) return undefined;
  const end = host.search(/[.:]/);
  const label = (end === -1 ? host : host.slice(0, end)).toLowerCase();
  return gw.has(label) ? label : undefined;
}

/** The gateway route of a request on the main listener, if it is one. */
function gatewayRoute(gw: Gateway, path: string, host: string | undefined): GatewayRoute | undefined {
  const rest = splitRestKey(path);
  if (rest) return { kind: 'rest', ...rest };
  const network = hostNetwork(gw, host);
  if (!network) return undefined;
  if (path === '/') return { kind: 'network', network };
  const key = networkPathKey(path);
  return key !== undefined && !path.startsWith('/ws/') ? { kind: 'network', network, key } : undefined;
}

/** /v1/jsonrpc/:network/ws → network */
function restWsNetwork(path: string): string | undefined {
  if (!path.startsWith(REST_PREFIX) || !path.endsWith('/ws')) return undefined;
  const segments = path.slice(REST_PREFIX.length).split('/');
  return segments.length === 2 ? segments[0] : undefined;
}

function fail(res: ServerResponse, err: unknown): void {
  const error = asRpcError(err);
  if (!res.headersSent) sendJson(res, error.status, JSON.stringify(errorResponse(null, error)));
  else res.destroy();
}

function refuseUpgrade(socket: Duplex, error: RpcError): void {
  const body = JSON.stringify(errorResponse(null, error));
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function createMainServer(parts: ServerParts): Server {
  const server = createServer((req, res) => {
    const { path, query } = splitUrl(req.url);
    const gw = parts.gateway;
    let work: Promise<void> | void = undefined;
    let route: GatewayRoute | undefined;
    if (path === '/healthz') work = health(parts, res);
    else if (!gw) work = fail(res, starting);
    else if (path === '/metrics') work = metrics(res);
    else if (path.startsWith('/api/') && parts.orderbook) work = parts.orderbook(req, res);
    else if ((route = gatewayRoute(gw, path, req.headers.host))) serveGateway(gw, route, req, res, query);
    else work = fail(res, rpcErrors.notFound(path));
    if (work) work.catch((err) => fail(res, err));
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const { path } = splitUrl(req.url);
    const { gateway: gw, ws } = parts;
    if (!gw || !ws) return refuseUpgrade(socket, starting);
    const rest = splitRestKey(path);
    const onHost = !rest && (path === '/ws' || path.startsWith('/ws/'));
    const network = rest ? restWsNetwork(rest.path) : onHost ? hostNetwork(gw, req.headers.host) : undefined;
    if (!network) return refuseUpgrade(socket, rpcErrors.notFound(`no WebSocket endpoint at ${path}`));
    if (!gw.has(network)) return refuseUpgrade(socket, rpcErrors.unknownNetwork(network, gw.networkNames));
    upgradeGateway(gw, ws, network, rest ? rest.key : networkPathKey(path), req, socket, head);
  });
  return server;
}

/** A listener of one network only, so that clients can use http://host:port as that network's URL. */
export function createNetworkServer(gw: Gateway, ws: WebSocketChannel, network: string): Server {
  const server = createServer((req, res) => {
    const { path, query } = splitUrl(req.url);
    serveGateway(gw, { kind: 'network', network, key: networkPathKey(path) }, req, res, query);
  });
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

async function health(parts: ServerParts, res: ServerResponse): Promise<void> {
  const report = await parts.health();
  sendJson(res, report.ready ? 200 : 503, JSON.stringify(report));
}

async function metrics(res: ServerResponse): Promise<void> {
  const text = await registry.metrics();
  res.writeHead(200, { 'content-type': registry.contentType });
  res.end(text);
}
