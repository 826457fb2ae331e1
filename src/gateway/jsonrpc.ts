/**
 * Parsing and checking of JSON-RPC requests against schemas/jsonrpc: the envelope first, then the
 * method's params where schemas/jsonrpc/method-params.schema.json defines them.
 */
import type { JsonRpcRequest } from '../generated/jsonrpc/request.js';
import type { JsonRpcResponse, JsonRpcErrorObject } from '../generated/jsonrpc/response.js';
import { validator, hasDefinition, describeError, type Validator } from '../shared/schemas.js';
import { rpcErrors, RpcError } from './errors.js';
import { jsonDepthWithin, tooDeepMessage } from '../http/json-depth.js';

export type { JsonRpcRequest, JsonRpcResponse, JsonRpcErrorObject };
export type JsonRpcId = JsonRpcRequest['id'];

/**
 * What an upstream answered for one call, without the envelope. `raw`, when present, is `result` already
 * serialized (a cached result keeps its JSON), so that replying does not serialize it again.
 */
export type RpcOutcome =
  | { result: unknown; raw?: string; error?: undefined }
  | { error: JsonRpcErrorObject; result?: undefined; raw?: undefined };

/** A request whose envelope and params have been checked; params is always an array. */
export interface CheckedRequest {
  id: JsonRpcId;
  method: string;
  params: unknown[];
}

const PARAMS_FILE = 'jsonrpc/method-params.schema.json';
const envelope = validator<JsonRpcRequest>('jsonrpc/request.schema.json');

/**
 * A JSON-RPC body, WebSocket frame or REST params value, its nesting bounded (see http/json-depth.ts)
 * before it is parsed: deeper is refused with `tooDeep` (an invalid request, or invalid params for a value
 * that stands for params alone).
 */
export function parseJson(body: Buffer | string, maxDepth: number, tooDeep = rpcErrors.invalidRequest): unknown {
  if (!jsonDepthWithin(body, maxDepth)) throw tooDeep(tooDeepMessage('the JSON', maxDepth));
  try {
    return JSON.parse(typeof body === 'string' ? body : body.toString('utf8'));
  } catch (err) {
    throw rpcErrors.parse((err as Error).message);
  }
}

/** Best effort id of a request that failed its checks, so the error can still be matched to it. */
export function idOf(value: unknown): JsonRpcId {
  if (typeof value === 'object' && value !== null && 'id' in value) {
    const id = (value as { id: unknown }).id;
    if (typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id))) return id;
  }
  return null;
}

export function checkEnvelope(value: unknown): CheckedRequest {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw rpcErrors.invalidRequest('the body must be a JSON-RPC request object');
  }
  if (!Object.hasOwn(value, 'id')) {
    throw rpcErrors.invalidRequest('the request has no id: notifications are not supported, every request is answered');
  }
  if (!envelope(value)) {
    const first = envelope.errors?.[0];
    if (first?.instancePath === '/params') throw rpcErrors.invalidParams('params must be an array');
    throw rpcErrors.invalidRequest(describeError(envelope.errors, 'request'));
  }
  return { id: value.id, method: value.method, params: value.params ?? [] };
}

/** Params validators of the methods that have one (a fixed set: names chosen by clients are not kept). */
const paramsValidators = new Map<string, Validator<unknown>>();

function paramsValidator(method: string): Validator<unknown> | undefined {
  let validate = paramsValidators.get(method);
  if (validate === undefined && hasDefinition(PARAMS_FILE, method)) {
    validate = validator(`${PARAMS_FILE}#/$defs/${method}`);
    paramsValidators.set(method, validate);
  }
  return validate;
}

export function checkParams(request: CheckedRequest): void {
  const validate = paramsValidator(request.method);
  if (validate && !validate(request.params)) {
    throw rpcErrors.invalidParams(describeError(validate.errors, 'params'));
  }
}

/** Envelope, then params: the whole check a request passes before it may reach an upstream. */
export function checkRequest(value: unknown): CheckedRequest {
  const request = checkEnvelope(value);
  checkParams(request);
  return request;
}

/** The serialized result a response carries besides `result` (a symbol: JSON.stringify leaves it out). */
const RAW_RESULT = Symbol('serialized result');
type WithRaw = JsonRpcResponse & { [RAW_RESULT]?: string };

export function response(id: JsonRpcId, outcome: RpcOutcome): JsonRpcResponse {
  if (outcome.error !== undefined) return { jsonrpc: '2.0', id, error: outcome.error };
  const answer: WithRaw = { jsonrpc: '2.0', id, result: outcome.result };
  if (outcome.raw !== undefined) answer[RAW_RESULT] = outcome.raw;
  return answer;
}

/**
 * The JSON text of a response or batch: like JSON.stringify, but a result that came serialized (from the
 * cache) is spliced in as it is rather than serialized again, which for a block is most of the work.
 */
export function serializeResponse(body: JsonRpcResponse | JsonRpcResponse[]): string {
  return Array.isArray(body) ? `[${body.map(serializeOne).join(',')}]` : serializeOne(body);
}

function serializeOne(answer: WithRaw): string {
  const raw = answer[RAW_RESULT];
  return raw === undefined ? JSON.stringify(answer) : `{"jsonrpc":"2.0","id":${JSON.stringify(answer.id)},"result":${raw}}`;
}

export function errorResponse(id: JsonRpcId, err: RpcError): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: err.toObject() };
}
