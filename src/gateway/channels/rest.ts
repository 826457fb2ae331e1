/**
 * The Infura-style REST channel under /v1/jsonrpc/:network:
 *   GET  /v1/jsonrpc/:network/methods           the method lists
 *   GET  /v1/jsonrpc/:network/:method?params=   a GET-list method, params as a URL-encoded JSON array
 *   POST /v1/jsonrpc/:network[/:method]         a POST-list method, JSON-RPC body
 * Here an error object returned by the upstream is answered with 502 (the other channels use 200).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gateway } from '../gateway.js';
import type { MethodsListing } from '../../generated/jsonrpc/methods-listing.js';
import {
  checkEnvelope,
  checkParams,
  parseJson,
  idOf,
  response,
  errorResponse,
  serializeResponse,
  type CheckedRequest,
  type JsonRpcId,
} from '../jsonrpc.js';
import { GATEWAY_ERRORS, rpcErrors, asRpcError } from '../errors.js';
import { readBody, isJsonContentType, sendJson } from '../../http/io.js';
import type { Caller } from '../access/access.js';

export async function handleRest(
  gw: Gateway,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: URLSearchParams,
  caller: Caller,
): Promise<void> {
  // segments after /v1/jsonrpc/: [network] or [network, method]; a trailing slash adds nothing
  const segments = path.split('/').slice(3);
  if (segments.length > 1 && segments.at(-1) === '') segments.pop();
  const isGet = req.method === 'GET' || req.method === 'HEAD';
  // A GET's id is known from the query before anything can fail, so that even its errors carry it.
  let id: JsonRpcId = isGet ? queryId(query.get('id')) : null;
  try {
    if (segments.length === 0 || segments.length > 2 || !segments[0]) throw rpcErrors.notFound(path);
    const [networkName, pathMethod] = segments.map(decodeSegment);
    const { relay } = gw.entry(networkName);

    let request: CheckedRequest;
    if (isGet) {
      if (pathMethod === undefined) throw rpcErrors.wrongHttpMethod(['POST']);
      if (pathMethod === 'methods') {
        const listing: MethodsListing = { get: [...gw.getMethods], post: [...gw.postMethods] };
        return sendJson(res, 200, JSON.stringify(listing));
      }
      if (pathMethod === 'ws') throw rpcErrors.upgradeRequired();
      if (!gw.getMethods.has(pathMethod)) throw rpcErrors.methodNotAllowed(pathMethod, 'with GET');
      request = { id, method: pathMethod, params: queryParams(query.get('params'), gw.config.maxJsonDepth) };
    } else if (req.method === 'POST') {
      request = await postedRequest(gw, req, pathMethod, (value) => (id = value));
    } else {
      throw rpcErrors.wrongHttpMethod(['GET', 'POST']);
    }

    caller.method = request.method;
    const admitted = caller.admit(1);
    if (admitted) await admitted;
    checkParams(request);
    const outcome = await relay.call(request, caller.hedge);
    // The REST routes answer an upstream's error object with the status of an upstream failure.
    sendJson(res, outcome.error ? GATEWAY_ERRORS.upstreamFailed.status : 200, serializeResponse(response(request.id, outcome)));
  } catch (err) {
    const error = asRpcError(err);
    sendJson(res, error.status, JSON.stringify(errorResponse(id, error)), error.headers);
  }
}

async function postedRequest(
  gw: Gateway,
  req: IncomingMessage,
  pathMethod: string | undefined,
  learnId: (id: JsonRpcId) => void,
): Promise<CheckedRequest> {
  if (!isJsonContentType(req.headers['content-type'])) throw rpcErrors.contentType(req.headers['content-type']);
  const body = parseJson(await readBody(req, gw.config.gateway.maxBodyBytes), gw.config.maxJsonDepth);
  if (Array.isArray(body)) throw rpcErrors.invalidRequest('batches are accepted on {network_url}/ and WebSocket, not here');
  learnId(idOf(body));
  const request = checkEnvelope(body);
  if (pathMethod !== undefined) {
    if (!gw.postMethods.has(pathMethod)) throw rpcErrors.methodNotAllowed(pathMethod, 'with POST');
    if (request.method !== pathMethod) {
      throw rpcErrors.invalidRequest(`the body's method ${request.method} differs from the path's ${pathMethod}`);
    }
  } else if (!gw.postMethods.has(request.method)) {
    throw rpcErrors.methodNotAllowed(request.method, 'with POST');
  }
  return request;
}

function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment; // nothing to decode (the common case, without the decoder's cost)
  try {
    return decodeURIComponent(segment);
  } catch {
    throw rpcErrors.invalidRequest(`malformed path segment ${JSON.stringify(segment)}`);
  }
}

/** The `id` query parameter: an integer when it looks like one, else the string; 1 when absent. */
function queryId(raw: string | null): JsonRpcId {
  if (raw === null) return 1;
  return /^-?\d{1,15}$/.test(raw) ? Number(raw) : raw;
}

function queryParams(raw: string | null, maxDepth: number): unknown[] {
  if (raw === null || raw === '') return [];
  const params = parseJson(raw, maxDepth, rpcErrors.invalidParams);
  if (!Array.isArray(params)) throw rpcErrors.invalidParams('params must be a JSON array');
  return params;
}
