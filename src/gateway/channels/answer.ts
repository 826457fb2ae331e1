/**
 * Answering a JSON-RPC body (one request or a batch) on the channels that accept every relayed method:
 * {network_url}/ and WebSocket. Each request is checked on its own, so one bad request in a batch gets its
 * own error and the others are still relayed.
 */
import type { JsonRpcResponse, CheckedRequest, RpcOutcome } from '../jsonrpc.js';
import { checkRequest, idOf, response, errorResponse } from '../jsonrpc.js';
import { RpcError, asRpcError, rpcErrors } from '../errors.js';
import type { Relay } from '../relay.js';

export interface AnswerContext {
  relay: Relay;
  maxBatchSize: number;
  isAllowed(method: string): boolean;
  /** Words for the -32601 message, e.g. "on {network_url}/". */
  where: string;
  /** Methods the channel answers itself (eth_subscribe on WebSocket); undefined means "relay it". */
  local?(request: CheckedRequest): Promise<RpcOutcome> | undefined;
}

export interface Answer {
  status: number;
  body: JsonRpcResponse | JsonRpcResponse[];
}

function check(ctx: AnswerContext, value: unknown): CheckedRequest {
  const request = checkRequest(value);
  if (!ctx.isAllowed(request.method)) throw rpcErrors.methodNotAllowed(request.method, ctx.where);
  return request;
}

/**
 * The answer to `body`, errors included (it never rejects). `admit` charges the caller's rate limits one
 * per call first; its refusal (429) is the answer then. A hedged read's extra upstream call is charged to
 * `hedge` (failsafe/hedge.ts; default `admit`), whose refusal only keeps the hedge from being sent.
 */
export async function answerBody(
  ctx: AnswerContext,
  body: unknown,
  admit?: (cost: number) => Promise<void> | undefined,
  hedge: ((cost: number) => Promise<void> | undefined) | undefined = admit,
): Promise<Answer> {
  try {
    const admitted = admit?.(costOf(body));
    if (admitted) await admitted;
    if (Array.isArray(body)) return { status: 200, body: await answerBatch(ctx, body, hedge) };
    const request = check(ctx, body);
    const outcome = await (ctx.local?.(request) ?? ctx.relay.call(request, hedge));
    return { status: 200, body: response(request.id, outcome) };
  } catch (err) {
    const error = asRpcError(err);
    return { status: error.status, body: errorResponse(idOf(body), error) };
  }
}

/** What a body costs against rate limits: one per call. */
function costOf(body: unknown): number {
  return Array.isArray(body) ? Math.max(1, body.length) : 1;
}

async function answerBatch(
  ctx: AnswerContext,
  items: unknown[],
  hedge: ((cost: number) => Promise<void> | undefined) | undefined,
): Promise<JsonRpcResponse[]> {
  if (items.length === 0) throw rpcErrors.invalidRequest('empty batch');
  if (items.length > ctx.maxBatchSize) throw rpcErrors.batchTooLarge(ctx.maxBatchSize);

  const answers: (JsonRpcResponse | undefined)[] = new Array(items.length);
  const relayed: { index: number; request: CheckedRequest }[] = [];
  const local: Promise<void>[] = [];
  items.forEach((item, index) => {
    try {
      const request = check(ctx, item);
      const handled = ctx.local?.(request);
      if (handled) {
        local.push(
          handled.then(
            (outcome) => void (answers[index] = response(request.id, outcome)),
            (err) => void (answers[index] = errorResponse(request.id, asRpcError(err))),
          ),
        );
      } else {
        relayed.push({ index, request });
      }
    } catch (err) {
      answers[index] = errorResponse(idOf(item), asRpcError(err));
    }
  });

  const outcomes = await ctx.relay.batch(relayed.map((r) => r.request), hedge);
  relayed.forEach(({ index, request }, i) => {
    const outcome = outcomes[i];
    answers[index] = outcome instanceof RpcError ? errorResponse(request.id, outcome) : response(request.id, outcome);
  });
  await Promise.all(local);
  return answers as JsonRpcResponse[];
}
