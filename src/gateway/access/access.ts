/**
 * Who is calling the gateway and whether they may. The access layer (src/access) has already identified
 * the caller and charged the request's first call before the gateway saw it; here the gateway's own rules
 * are added: an API key is required as soon as any is configured, and a batch of n calls costs n. A key
 * travels in the path ({network_url}/<key>, /v1/<key>/jsonrpc/..., /ws/<key>) or in the X-Api-Key
 * header; the path wins when both are given (keyOf).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiKeyConfig, GatewayConfig } from '../../generated/config.js';
import { clientOf, type AccessLayer, type Client } from '../../access/access.js';
import { AccessRefusal } from '../../access/errors.js';
import { accessMetrics } from '../../access/metrics.js';
import { asRpcError, rpcErrors } from '../errors.js';
import { presetHeader } from '../../http/io.js';

/** What metrics and logs note of a request. */
export interface RequestFacts {
  readonly requestId: string;
  readonly apiKey: ApiKeyConfig | undefined;
  /** The JSON-RPC method asked for ("batch" for a batch), set by the channel. */
  method: string | undefined;
}

/** One client request (an HTTP request, or a WebSocket connection) as the channels see it. */
export class Caller implements RequestFacts {
  method: string | undefined = undefined;
  readonly apiKey: ApiKeyConfig | undefined;

  constructor(
    readonly requestId: string,
    private readonly client: Client,
    private readonly access: AccessLayer,
    /** HTTP only: receives Retry-After when a limit refuses a call. */
    private readonly res: ServerResponse | undefined,
    /** Calls already charged by the access layer (the HTTP request's first), taken off the next charge. */
    private prepaid: number,
  ) {
    this.apiKey = client.apiKey;
  }

  /** The bucket the access layer counts the caller in (its address, an IPv6 one by its /64). */
  get limitId(): string {
    return this.client.limitId;
  }

  /** Charges `cost` calls to the caller's limits; rejects with the 429 RpcError when spent (undefined: no limits). */
  admit(cost: number): Promise<void> | undefined {
    const due = cost - this.prepaid;
    this.prepaid = Math.max(0, this.prepaid - cost);
    const charged = this.access.charge(this.client, due);
    if (!charged) return undefined;
    return charged.catch((err: unknown) => {
      if (this.res && err instanceof AccessRefusal && err.retryAfterSeconds !== undefined) {
        presetHeader(this.res, 'retry-after', String(err.retryAfterSeconds));
      }
      throw asRpcError(err);
    });
  }

  /**
   * Charges a hedged read's extra upstream call (failsafe/hedge.ts): a refusal only means the hedge is not
   * sent, so it leaves the answer alone (no Retry-After on the read's own 200).
   */
  readonly hedge = (cost: number): Promise<void> | undefined => this.access.charge(this.client, cost);
}

/** An X-Request-Id a client may choose; anything else is replaced by a fresh id. */
const REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

/**
 * Fresh ids: a random prefix per process and a counter, e.g. `3f9c0a1b7e2d-1a2b`. Unique across instances
 * as the prefix is (48 random bits), and cheaper than a random UUID per request.
 */
const ID_PREFIX = randomBytes(6).toString('hex') + '-';
let idCounter = 0;

export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : ID_PREFIX + (++idCounter).toString(36);
}

/** The API key of a gateway request: the one in its path, else its X-Api-Key header. */
export function keyOf(req: IncomingMessage, pathKey: string | undefined): string | undefined {
  if (pathKey) return pathKey;
  const header = req.headers['x-api-key'];
  return typeof header === 'string' && header !== '' ? header : undefined;
}

export class Access {
  private readonly keysRequired: boolean;

  constructor(
    config: GatewayConfig,
    readonly layer: AccessLayer,
  ) {
    this.keysRequired = config.apiKeys.length > 0;
  }

  /**
   * The caller of an HTTP request or WebSocket upgrade; throws 401 when keys are required and the request
   * has none or an unknown one. `res` (HTTP only) receives Retry-After when a limit refuses a call; an HTTP
   * request's first call was charged by the access layer already.
   */
  caller(req: IncomingMessage, pathKey: string | undefined, res?: ServerResponse): Caller {
    let client = clientOf(req);
    if (!client) {
      try {
        client = this.layer.identify(req, keyOf(req, pathKey));
      } catch (err) {
        throw asRpcError(err);
      }
    }
    if (this.keysRequired && !client.apiKey) {
      accessMetrics.unauthorized.labels('missing').inc();
      throw rpcErrors.unauthorized(
        'an API key is required: put it in the path ({network_url}/<key>, /v1/<key>/jsonrpc/...) or the X-Api-Key header',
      );
    }
    return new Caller(requestIdOf(req), client, this.layer, res, res ? 1 : 0);
  }
}
