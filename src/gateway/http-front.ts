/**
 * The gateway on the service's HTTP listeners: which requests are its own and how they reach a network.
 * - Host whose first label is a network (mainnet.localhost): POST / and GET /ws belong to that network
 *   (also POST /<key> and GET /ws/<key> with an API key);
 * - /v1/jsonrpc/...: the REST channel, and /v1/jsonrpc/:network/ws for WebSocket (also /v1/<key>/jsonrpc/...);
 * - a network's dedicated listener (PORT_<NETWORK>): every request belongs to that network.
 * src/http/server.ts listens and hands the gateway every path the other parts do not take; requests then go
 * through requests.ts (API key, request id, metrics). Refusals are JSON-RPC errors with their HTTP status.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { HttpPart, ListenerRefusal, PartAnswer } from '../http/server.js';
import { endSocketWithJson } from '../http/io.js';
import type { Gateway } from './gateway.js';
import type { WebSocketChannel } from './channels/websocket.js';
import { REST_PREFIX, failRequest, serveGateway, splitRestKey, networkPathKey, type GatewayRoute } from './requests.js';
import { errorResponse } from './jsonrpc.js';
import { asRpcError, fromRefusal, listenerRefusal, rpcErrors, type RpcError } from './errors.js';
import { keyOf } from './access/access.js';
import type { AccessRefusal } from '../access/errors.js';

const starting = rpcErrors.starting();

const DOT = 0x2e;
const COLON = 0x3a;

/** The first label of the Host header, lowercase ('' without one); asked once or twice per request. */
function hostLabel(host: string | undefined): string {
  if (!host) return '';
  let end = 0;
  while (end < host.length && host.charCodeAt(end) !== DOT && host.charCodeAt(end) !== COLON) end++;
  return (end === host.length ? host : host.slice(0, end)).toLowerCase();
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

/** An RpcError as the listeners send it: its status and JSON-RPC body. */
const partAnswer = (error: RpcError): PartAnswer => ({ status: error.status, body: JSON.stringify(errorResponse(null, error)) });

/** How the gateway answers what its handlers do not: failures, the service starting, early refusals. */
const answers: Pick<HttpPart, 'fail' | 'unavailable' | 'refusal' | 'accessRefusal'> = {
  fail: (res: ServerResponse, err: unknown) => failRequest(res, err ?? rpcErrors.internal()),
  unavailable: (res: ServerResponse) => failRequest(res, starting),
  refusal: (kind: ListenerRefusal, description: string) => partAnswer(listenerRefusal(kind, description)),
  accessRefusal: (refusal: AccessRefusal) => partAnswer(fromRefusal(refusal)),
};

/**
 * The API key of a request on the main listener (for the access layer): in a REST path, in a
 * {network_url} path when the Host names a network, else in X-Api-Key.
 */
function mainKeyOf(gw: Gateway | undefined, req: IncomingMessage, path: string): string | undefined {
  const rest = splitRestKey(path);
  if (rest) return keyOf(req, rest.key);
  return keyOf(req, gw?.has(hostLabel(req.headers.host)) ? networkPathKey(path) : undefined);
}

/** The gateway as it is while the service starts (undefined) and once it runs. */
export interface GatewayParts {
  gateway(): Gateway | undefined;
  ws(): WebSocketChannel | undefined;
}

/** The gateway's part of the main listener: every path the other parts do not take. */
export function gatewayFront(parts: GatewayParts): HttpPart {
  return {
    serve(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): void {
      const gw = parts.gateway();
      if (!gw) return failRequest(res, starting);
      let route: GatewayRoute | undefined;
      try {
        route = gatewayRoute(gw, path, req.headers.host);
      } catch (err) {
        return failRequest(res, err);
      }
      if (route) serveGateway(gw, route, req, res, query);
      else failRequest(res, rpcErrors.notFound(path));
    },
    upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, path: string): void {
      const gw = parts.gateway();
      const ws = parts.ws();
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
    },
    claimsHost: (host: string | undefined) => parts.gateway()?.has(hostLabel(host)) ?? false,
    keyOf: (req: IncomingMessage, path: string) => mainKeyOf(parts.gateway(), req, path),
    ...answers,
  };
}

/** A listener of one network only, so that clients can use http://host:port as that network's URL. */
export function networkFront(gw: Gateway, ws: WebSocketChannel, network: string): HttpPart {
  return {
    serve(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): void {
      if (req.method === 'GET' && isWsPath(path)) return failRequest(res, rpcErrors.upgradeRequired());
      serveGateway(gw, { kind: 'network', network, key: networkPathKey(path) }, req, res, query);
    },
    upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, path: string): void {
      upgradeGateway(gw, ws, network, networkPathKey(path), req, socket, head);
    },
    claimsHost: () => true,
    keyOf: (req: IncomingMessage, path: string) => keyOf(req, networkPathKey(path)),
    ...answers,
  };
}
