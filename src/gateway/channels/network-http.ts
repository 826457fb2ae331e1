/**
 * {network_url}/: a network's own address, reached by Host name (mainnet.example.com) or by a dedicated
 * listener port. It takes a JSON-RPC body, one request or a batch, for every relayed method, and answers an
 * error object from the upstream with 200, as Ethereum client libraries expect.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gateway } from '../gateway.js';
import { parseJson, errorResponse, serializeResponse } from '../jsonrpc.js';
import { rpcErrors, asRpcError } from '../errors.js';
import { readBody, isJsonContentType, sendJson } from '../../http/io.js';
import { answerBody, type AnswerContext } from './answer.js';
import type { Caller } from '../access/access.js';
import type { Relay } from '../relay.js';

/** Each network's context, made once: it depends only on the gateway's configuration. */
const contexts = new WeakMap<Relay, AnswerContext>();

export function httpAnswerContext(gw: Gateway, networkName: string): AnswerContext {
  const { relay } = gw.entry(networkName);
  let context = contexts.get(relay);
  if (!context) {
    context = {
      relay,
      maxBatchSize: gw.config.gateway.maxBatchSize,
      isAllowed: (method) => gw.relayedMethods.has(method),
      where: `on this network's address (allowed: see RELAYED_METHODS)`,
    };
    contexts.set(relay, context);
  }
  return context;
}

export async function handleNetworkHttp(
  gw: Gateway,
  networkName: string,
  req: IncomingMessage,
  res: ServerResponse,
  caller: Caller,
): Promise<void> {
  let body: unknown;
  try {
    if (req.method !== 'POST') throw rpcErrors.wrongHttpMethod(['POST']);
    if (!isJsonContentType(req.headers['content-type'])) throw rpcErrors.contentType(req.headers['content-type']);
    body = parseJson(await readBody(req, gw.config.gateway.maxBodyBytes), gw.config.maxJsonDepth);
    caller.method = methodOf(body);
    const answer = await answerBody(httpAnswerContext(gw, networkName), body, (cost) => caller.admit(cost), caller.hedge);
    sendJson(res, answer.status, serializeResponse(answer.body));
  } catch (err) {
    // Before the body was parsed: a wrong method, content type or body.
    const error = asRpcError(err);
    sendJson(res, error.status, JSON.stringify(errorResponse(null, error)), error.headers);
  }
}

/** The method of a JSON-RPC body as metrics and logs name it: its method, or "batch". */
export function methodOf(body: unknown): string | undefined {
  if (Array.isArray(body)) return 'batch';
  const method = (body as { method?: unknown } | null)?.method;
  return typeof method === 'string' ? method : undefined;
}
