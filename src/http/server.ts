/**
 * The service's HTTP listeners: they listen, find the part a request belongs to, and hand it over.
 * - /healthz and /metrics are the service's own; /status too, when given;
 * - /api/... belongs to the order book;
 * - the explorer's page and files (GET / asking for HTML, /explorer/...) when the Host names no network;
 * - every other path belongs to the gateway (src/gateway/http-front.ts says which of them it serves).
 * A network's dedicated listener (PORT_<NETWORK>) hands everything to that network's part. What no part saw
 * (unreadable HTTP, an HTTP/1.1 request without Host) and what a part's handler throws are answered here, in
 * the shape of the part the path belongs to. This module knows no part's internals: they come as HttpParts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { registry } from '../shared/metrics.js';
import { sendJson, presetHeader, endSocketWithJson } from './io.js';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

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
  /** The JSON body of a refusal made before this part saw the request. */
  refusalBody(status: number, description: string): string;
  /** Whether a request with this Host header is the part's own (the explorer then stands aside). */
  claimsHost?(host: string | undefined): boolean;
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
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const description =
      status === 431
        ? 'the request headers are too large'
        : status === 408
          ? 'the request was not received in time'
          : `the HTTP request could not be parsed (${err.message.replace(/^Parse Error: /, '')})`;
    const requestLine = err.rawPacket?.subarray(0, 256).toString('latin1') ?? '';
    const path = requestLine.split(' ')[1] ?? '';
    endSocketWithJson(socket, status, partOf(parts, path).refusalBody(status, description));
  };
}

/** HTTP/1.1 requires Host; Node's own refusal of a request without one has no body. */
function refuseWithoutHost(req: IncomingMessage, res: ServerResponse, part: HttpPart): boolean {
  if (req.headers.host !== undefined || req.httpVersion !== '1.1') return false;
  sendJson(res, 400, part.refusalBody(400, 'an HTTP/1.1 request needs a Host header'), { connection: 'close' });
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

/** Options of every listener: Host is checked by refuseWithoutHost, so that its refusal has a body. */
const LISTENER_OPTIONS = { requireHostHeader: false };

/**
 * Every path but the service's own and the order book's answers browsers from any origin, as Infura does:
 * JSON-RPC calls carry no cookies, so a dapp page may use {network_url} directly. Gives true when the
 * request was a CORS preflight, now answered.
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
  const server = createServer(LISTENER_OPTIONS, guarded(parts, (req, res) => {
    const { path, query } = splitUrl(req.url);
    if (refuseWithoutHost(req, res, partOf(parts, path))) return;
    const own = path === '/healthz' || path === '/metrics';
    if (!own && !isOrderbookPath(path) && allowAnyOrigin(req, res)) return;
    if (path === '/healthz') return health(parts, res);
    if (!parts.started()) return parts.gateway.unavailable(res);
    if (path === '/metrics') return metrics(res);
    if (path === '/status' && parts.status) return sendJson(res, 200, JSON.stringify(parts.status()));
    if (isOrderbookPath(path) && parts.orderbook) return parts.orderbook.serve(req, res, path, query);
    if (parts.explorer && !parts.gateway.claimsHost?.(req.headers.host) && parts.explorer(req, res, path)) return;
    return parts.gateway.serve(req, res, path, query);
  }));
  server.on('clientError', refuseUnreadable(parts));
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const { path } = splitUrl(req.url);
    const part = partOf(parts, path);
    if (!part.upgrade) return endSocketWithJson(socket, 404, part.refusalBody(404, `no WebSocket endpoint at ${path}`));
    part.upgrade(req, socket, head, path);
  });
  return server;
}

/** A listener of one part only (a network's own port): every request and upgrade goes to it. */
export function createPartServer(part: HttpPart): Server {
  const parts = { gateway: part };
  const server = createServer(LISTENER_OPTIONS, guarded(parts, (req, res) => {
    if (allowAnyOrigin(req, res)) return;
    const { path, query } = splitUrl(req.url);
    return part.serve(req, res, path, query);
  }));
  server.on('clientError', refuseUnreadable(parts));
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => part.upgrade?.(req, socket, head, splitUrl(req.url).path));
  return server;
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
