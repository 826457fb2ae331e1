/**
 * What every gateway request goes through around its channel: an API key (in the path or the X-Api-Key
 * header) decides who the caller is, the request id (X-Request-Id, given or made) is echoed in the answer,
 * and once answered the request is counted in the metrics and, at debug level, logged. Nothing here logs
 * at info per request: the hot path stays cheap.
 */
import { performance } from 'node:perf_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gateway } from './gateway.js';
import type { Channel } from './methods.js';
import { asRpcError } from './errors.js';
import { errorResponse } from './jsonrpc.js';
import { requestIdOf, type Caller, type RequestFacts } from './access/access.js';
import { handleNetworkHttp } from './channels/network-http.js';
import { handleRest } from './channels/rest.js';
import { metrics, methodLabel } from './metrics.js';
import { sendJson, presetHeader } from '../http/io.js';
import type { CounterCell } from './metrics.js';

export type GatewayRoute =
  /** {network_url}/ and {network_url}/<key> */
  | { kind: 'network'; network: string; key?: string }
  /** /v1/jsonrpc/... (`path` without any key segment) */
  | { kind: 'rest'; path: string; key?: string };

export const REST_PREFIX = '/v1/jsonrpc/';

/** /v1/<key>/jsonrpc/... → the key and the same path without it. */
export function splitRestKey(path: string): { path: string; key?: string } | undefined {
  if (path.startsWith(REST_PREFIX)) return { path };
  if (!path.startsWith('/v1/')) return undefined;
  const end = path.indexOf('/', 4);
  if (end <= 4 || !path.startsWith('/jsonrpc/', end)) return undefined;
  return { path: '/v1' + path.slice(end), key: path.slice(4, end) };
}

/** The key of a {network_url} path: "/<key>" or "/ws/<key>"; undefined for "/" and "/ws". */
export function networkPathKey(path: string): string | undefined {
  const rest = path.startsWith('/ws/') ? path.slice(4) : path.slice(1);
  return rest === '' || rest === 'ws' || rest.includes('/') ? undefined : rest;
}

/**
 * Request counter cells by network, channel, method and status: nested maps keyed by the values as they
 * come, so that a lookup builds no label list and no combined key to hash.
 */
const requestCells = new Map<string, Map<string, Map<string, Map<number, CounterCell>>>>();

function requestCell(network: string, channel: string, method: string, status: number): CounterCell {
  let byChannel = requestCells.get(network);
  if (!byChannel) requestCells.set(network, (byChannel = new Map()));
  let byMethod = byChannel.get(channel);
  if (!byMethod) byChannel.set(channel, (byMethod = new Map()));
  let byStatus = byMethod.get(method);
  if (!byStatus) byMethod.set(method, (byStatus = new Map()));
  let cell = byStatus.get(status);
  if (!cell) byStatus.set(status, (cell = metrics.requests.cell(network, channel, method, String(status))));
  return cell;
}

/** Counts one answered request (HTTP request or WebSocket message) and logs it at debug level. */
export function recordRequest(
  gw: Gateway,
  network: string,
  channel: Channel,
  caller: RequestFacts | undefined,
  status: number,
  started: number,
): void {
  const method = caller?.method === undefined ? 'none' : caller.method === 'batch' ? 'batch' : methodLabel(caller.method);
  requestCell(network, channel, method, status).pending++;
  if (gw.logger.isLevelEnabled('debug')) {
    const ms = performance.now() - started;
    gw.logger.debug(
      { requestId: caller?.requestId, network, channel, method: caller?.method, status, ms, key: caller?.apiKey?.label },
      'gateway request',
    );
  }
}

/** Serves one HTTP request of a gateway route: caller, channel, metrics. */
export function serveGateway(
  gw: Gateway,
  route: GatewayRoute,
  req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
): void {
  // The clock is read only for the debug log line.
  const started = gw.logger.isLevelEnabled('debug') ? performance.now() : 0;
  const channel: Channel = route.kind === 'network' ? 'http' : req.method === 'POST' ? 'rest-post' : 'rest-get';
  const network = route.kind === 'network' ? route.network : restNetworkLabel(gw, route.path);
  let caller: Caller | undefined;
  let work: Promise<void>;
  try {
    caller = gw.access.caller(req, route.key, res);
    presetHeader(res, 'x-request-id', caller.requestId);
    work =
      route.kind === 'network'
        ? handleNetworkHttp(gw, route.network, req, res, caller)
        : handleRest(gw, req, res, route.path, query, caller);
  } catch (err) {
    // No caller: the API key was refused.
    presetHeader(res, 'x-request-id', requestIdOf(req));
    failRequest(res, err);
    recordRequest(gw, network, channel, caller, res.statusCode, started);
    return;
  }
  const done = () => recordRequest(gw, network, channel, caller, res.statusCode, started);
  work.then(done, (err: unknown) => {
    failRequest(res, err);
    done();
  });
}

/** Answers an HTTP request with the JSON-RPC error of `err`, or drops the connection if the answer has begun. */
export function failRequest(res: ServerResponse, err: unknown): void {
  const error = asRpcError(err);
  if (!res.headersSent) sendJson(res, error.status, JSON.stringify(errorResponse(null, error)), error.headers);
  else res.destroy();
}

/** The network label of a REST path: only configured names, so that clients cannot grow the label set. */
function restNetworkLabel(gw: Gateway, path: string): string {
  const end = path.indexOf('/', REST_PREFIX.length);
  const name = path.slice(REST_PREFIX.length, end === -1 ? undefined : end);
  return gw.has(name) ? name : 'unknown';
}
