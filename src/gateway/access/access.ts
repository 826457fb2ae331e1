/**
 * Who is calling the gateway and whether they may: API keys (required as soon as any is configured) and
 * rate limits. A key travels in the path ({network_url}/<key>, /v1/<key>/jsonrpc/..., /ws/<key>) or in the
 * X-Api-Key header; the path wins when both are given.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Redis } from 'ioredis';
import type { ApiKeyConfig, GatewayConfig } from '../../generated/config.js';
import type { Logger } from '../../shared/logger.js';
import { RpcError, rpcErrors } from '../errors.js';
import { metrics } from '../metrics.js';
import { RateLimits } from './rate-limits.js';
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
  private address: string | undefined;

  constructor(
    readonly requestId: string,
    readonly apiKey: ApiKeyConfig | undefined,
    private readonly access: Access,
    private readonly req: IncomingMessage,
    /** HTTP only: receives Retry-After when a limit refuses a call. */
    private readonly res: ServerResponse | undefined,
  ) {}

  /** Charges `cost` calls to the caller's limits; rejects with the 429 RpcError when spent (undefined: no limits). */
  admit(cost: number): Promise<void> | undefined {
    return this.access.charge(this, cost, this.res);
  }

  /** The client's address (see Access.clientAddress). */
  ip(): string {
    return (this.address ??= this.access.clientAddress(this.req));
  }
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

export class Access {
  private readonly keys: Map<string, ApiKeyConfig>;
  private readonly limits: RateLimits;

  constructor(
    private readonly config: GatewayConfig,
    redis: Redis | undefined,
    logger: Logger,
  ) {
    this.keys = new Map(config.apiKeys.map((k) => [k.key, k]));
    this.limits = new RateLimits(config.rateLimit, config.apiKeys, redis, logger);
  }

  private get keysRequired(): boolean {
    return this.keys.size > 0;
  }

  /**
   * The caller of an HTTP request or WebSocket upgrade; throws 401 when keys are required and the request
   * has none or an unknown one. `res` (HTTP only) receives Retry-After when a limit refuses a call.
   */
  caller(req: IncomingMessage, pathKey: string | undefined, res?: ServerResponse): Caller {
    return new Caller(requestIdOf(req), this.apiKeyOf(req, pathKey), this, req, res);
  }

  /** See Caller.admit. */
  charge(caller: Caller, cost: number, res: ServerResponse | undefined): Promise<void> | undefined {
    if (!this.limits.active) return undefined;
    return this.limits.consume(caller.ip(), caller.apiKey?.key, cost).catch((err: unknown) => {
      if (res && err instanceof RpcError && err.status === 429) {
        presetHeader(res, 'retry-after', String((err.data as { retryAfterSeconds: number }).retryAfterSeconds));
      }
      throw err;
    });
  }

  private apiKeyOf(req: IncomingMessage, pathKey: string | undefined): ApiKeyConfig | undefined {
    if (!this.keysRequired) return undefined;
    const header = req.headers['x-api-key'];
    const given = pathKey || (typeof header === 'string' ? header : undefined);
    if (!given) {
      metrics.unauthorized.labels('missing').inc();
      throw rpcErrors.unauthorized(
        'an API key is required: put it in the path ({network_url}/<key>, /v1/<key>/jsonrpc/...) or the X-Api-Key header',
      );
    }
    const key = this.keys.get(given);
    if (!key) {
      metrics.unauthorized.labels('unknown').inc();
      throw rpcErrors.unauthorized('unknown API key');
    }
    return key;
  }

  /**
   * The client's address. Behind TRUST_PROXY=<hops> proxies, each of which appends the address it got the
   * request from to X-Forwarded-For, the client is the entry <hops> places from the right: what lies further
   * left was written by the client itself (as Express's `trust proxy` counts). Without it, the peer address.
   */
  clientAddress(req: IncomingMessage): string {
    const peer = req.socket.remoteAddress ?? 'unknown';
    const hops = this.config.trustProxy;
    if (hops === 0) return peer;
    const header = req.headers['x-forwarded-for'];
    const entries = (Array.isArray(header) ? header.join(',') : (header ?? ''))
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    if (entries.length === 0) return peer;
    return entries[Math.max(0, entries.length - hops)];
  }
}
