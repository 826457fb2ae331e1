/**
 * The access layer in front of both parts (src/http/server.ts applies it to every request before a part
 * sees it): which Host values are served, who the caller is (address through trusted proxies, API key when
 * one is given), the caller's rate limits, refused keys and tokens counted per address, and who may use the
 * operator routes. It knows neither part: each part says where its key travels and what a route costs,
 * and answers a refusal (AccessRefusal) in its own shape.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Redis } from 'ioredis';
import type { AccessConfig, ApiKeyConfig, RateLimitConfig } from '../generated/config.js';
import type { Logger } from '../shared/logger.js';
import { AddressSet, clientAddress, isLoopback, limitIdOf } from './addresses.js';
import { AllowedHosts, defaultAllowedHosts } from './hosts.js';
import { AccessRefusal } from './errors.js';
import { accessMetrics } from './metrics.js';
import { KeyFailures, RateLimits } from './rate-limits.js';

/**
 * The caller of one request (or WebSocket connection). Its address is worked out when first asked for (by a
 * rate limit or an operator check), so that a service without them pays nothing for it.
 */
export class Client {
  private resolved: string | undefined;
  private bucket: string | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly layer: AccessLayer,
    /** The API key it gave, when it gave a known one. */
    readonly apiKey: ApiKeyConfig | undefined,
  ) {}

  /** Its address: the peer's, or the one trusted proxies forwarded. */
  get address(): string {
    return (this.resolved ??= this.layer.addressOf(this.req));
  }

  /** The bucket its address is counted in (an IPv6 address's /64). */
  get limitId(): string {
    return (this.bucket ??= limitIdOf(this.address));
  }
}

export interface AccessOptions {
  access: AccessConfig;
  rateLimit: RateLimitConfig;
  apiKeys: readonly ApiKeyConfig[];
  /** The address the main listener binds (HOST), allowed as a Host by default. */
  bindHost: string;
}

const CLIENT = Symbol('the caller, as the access layer identified it');
type WithClient = IncomingMessage & { [CLIENT]?: Client };

/** The caller the access layer identified for this request (set before any part sees it). */
export function clientOf(req: IncomingMessage): Client | undefined {
  return (req as WithClient)[CLIENT];
}

/** Addresses blocked after too many refused keys, remembered at most this many at once. */
const MAX_BLOCKED = 10_000;

const sha256 = (text: string) => createHash('sha256').update(text).digest();

export class AccessLayer {
  readonly hosts: AllowedHosts;
  private readonly proxies: AddressSet;
  private readonly hops: number;
  private readonly keys: Map<string, ApiKeyConfig>;
  private readonly tokenDigest: Buffer | undefined;
  private limits: RateLimits;
  private failures: KeyFailures;
  /** Addresses (limit ids) refused keys are blocked for, until the time given (ms since the epoch). */
  private readonly blocked = new Map<string, number>();

  constructor(
    private readonly options: AccessOptions,
    private readonly logger: Logger,
  ) {
    const { access } = options;
    this.hosts = new AllowedHosts(access.allowedHosts ?? defaultAllowedHosts(options.bindHost));
    this.proxies = new AddressSet(access.trustedProxies);
    this.hops = access.proxyHops;
    this.keys = new Map(options.apiKeys.map((k) => [k.key, k]));
    this.tokenDigest = access.operatorToken === undefined ? undefined : sha256(access.operatorToken);
    this.limits = new RateLimits(options.rateLimit, options.apiKeys, undefined, logger);
    this.failures = new KeyFailures(access.keyFailuresPerMinute, undefined);
  }

  /** Counts in Redis from now on, so that every instance shares the budgets (once Redis is connected). */
  useRedis(redis: Redis): void {
    this.limits = new RateLimits(this.options.rateLimit, this.options.apiKeys, redis, this.logger);
    this.failures = new KeyFailures(this.options.access.keyFailuresPerMinute, redis);
  }

  /** The Host check (421 otherwise); a request without Host is refused elsewhere. */
  checkHost(host: string | undefined): void {
    if (this.hosts.allows(host)) return;
    accessMetrics.misdirected.inc();
    throw new AccessRefusal('misdirected', `this service does not answer for the host ${JSON.stringify(host)} (see ALLOWED_HOSTS)`);
  }

  /** The client's address (see addresses.ts). */
  addressOf(req: IncomingMessage): string {
    return clientAddress(req.socket.remoteAddress ?? 'unknown', req.headers['x-forwarded-for'], this.proxies, this.hops);
  }

  /**
   * Identifies the caller of `req` and keeps it on the request (clientOf). `key` is the API key the request
   * gives, if any (the part knows where it travels): an unknown one is refused 401 and counted against the
   * address; an address past its allowance of refused keys gets 429 for any key.
   */
  identify(req: IncomingMessage, key: string | undefined): Client {
    let apiKey: ApiKeyConfig | undefined;
    if (key !== undefined) {
      const limitId = limitIdOf(this.addressOf(req));
      this.checkBlocked(limitId);
      apiKey = this.keys.get(key);
      if (!apiKey) {
        accessMetrics.unauthorized.labels('unknown').inc();
        this.recordFailure(limitId);
        throw new AccessRefusal('unauthorized', 'unknown API key');
      }
    }
    const client = new Client(req, this, apiKey);
    (req as WithClient)[CLIENT] = client;
    return client;
  }

  /** Whether any API key is configured (else a part need not look for one). */
  get usesKeys(): boolean {
    return this.keys.size > 0;
  }

  /** Charges `cost` to the caller's limits; rejects with 429 when spent, undefined when nothing limits it. */
  charge(client: Client, cost: number): Promise<void> | undefined {
    if (cost <= 0 || !this.limits.active) return undefined;
    return this.limits.consume(client.limitId, client.apiKey?.key, cost);
  }

  /**
   * Whether `req` may use an operator route: with OPERATOR_TOKEN set, when it carries
   * `Authorization: Bearer <token>` (compared in constant time); without it, when the caller is on loopback
   * and no proxy the service does not trust forwarded the request. Throws the 401 (or the 429 of too many
   * wrong tokens) otherwise.
   */
  checkOperator(req: IncomingMessage, client: Client): void {
    if (this.tokenDigest) {
      const header = req.headers.authorization;
      const given = typeof header === 'string' && /^bearer /i.test(header) ? header.slice(7).trim() : undefined;
      if (given !== undefined) this.checkBlocked(client.limitId);
      if (given !== undefined && timingSafeEqual(sha256(given), this.tokenDigest)) return;
      accessMetrics.unauthorized.labels(given === undefined ? 'token-missing' : 'token-wrong').inc();
      if (given !== undefined) this.recordFailure(client.limitId);
      throw new AccessRefusal('unauthorized', given === undefined ? 'this route needs the operator token: Authorization: Bearer <OPERATOR_TOKEN>' : 'wrong operator token');
    }
    if (isLoopback(client.address) && !this.forwardedByStranger(req)) return;
    accessMetrics.unauthorized.labels('not-loopback').inc();
    throw new AccessRefusal('unauthorized', 'this route answers clients on loopback only, unless OPERATOR_TOKEN is set (then with Authorization: Bearer <OPERATOR_TOKEN>)');
  }

  /**
   * A request from a local proxy the service was not told to trust carries the forwarding headers of the
   * proxy: its client is not on loopback, whatever the peer address says.
   */
  private forwardedByStranger(req: IncomingMessage): boolean {
    const h = req.headers;
    if (h['x-forwarded-for'] === undefined && h.forwarded === undefined && h['x-real-ip'] === undefined) return false;
    return !this.proxies.has(req.socket.remoteAddress ?? '');
  }

  private checkBlocked(limitId: string): void {
    if (this.blocked.size === 0) return;
    const until = this.blocked.get(limitId);
    if (until === undefined) return;
    const left = until - Date.now();
    if (left <= 0) {
      this.blocked.delete(limitId);
      return;
    }
    accessMetrics.rateLimited.labels('key-failures').inc();
    throw new AccessRefusal(
      'rateLimited',
      `too many refused API keys or tokens from this address: at most ${this.options.access.keyFailuresPerMinute} a minute`,
      Math.max(1, Math.ceil(left / 1000)),
    );
  }

  /** Counts a refused key or token; past the allowance the address is blocked until its minute ends. */
  private recordFailure(limitId: string): void {
    this.failures.record(limitId).then(
      (msBeforeNext) => {
        if (msBeforeNext === undefined) return;
        if (this.blocked.size >= MAX_BLOCKED) this.pruneBlocked();
        this.blocked.set(limitId, Date.now() + msBeforeNext);
      },
      () => undefined,
    );
  }

  private pruneBlocked(): void {
    const now = Date.now();
    for (const [id, until] of this.blocked) if (until <= now) this.blocked.delete(id);
    if (this.blocked.size >= MAX_BLOCKED) this.blocked.clear();
  }
}
