/**
 * Rate limits per client address and per API key, over a fixed window, for every route of both parts: a
 * JSON-RPC call counts one (a batch of n costs n), an order book request its route's cost. Counters live
 * in process, or in Redis when it is configured so that every instance counts against the same budget;
 * while Redis is away each instance counts on its own (the insurance limiter) rather than refusing or
 * waving everything through. Also the count of refused keys and tokens per address.
 */
import { createHash } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { ApiKeyConfig, RateLimitConfig } from '../generated/config.js';
import type { Logger } from '../shared/logger.js';
import { AccessRefusal } from './errors.js';
import { accessMetrics } from './metrics.js';

type Scope = 'ip' | 'key';

interface Limit {
  limiter: RateLimiterAbstract;
  points: number;
  scope: Scope;
}

/** A limiter in Redis when given one (with the in-process one as insurance), else in process. */
function limiterOf(redis: Redis | undefined, points: number, duration: number, keyPrefix: string): RateLimiterAbstract {
  const memory = new RateLimiterMemory({ points, duration, keyPrefix });
  return redis
    ? new RateLimiterRedis({ storeClient: redis, points, duration, keyPrefix, rejectIfRedisNotReady: true, insuranceLimiter: memory })
    : memory;
}

/** The id a key is counted under: a hash, so that keys never reach Redis. */
export function keyId(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 32);
}

export class RateLimits {
  private readonly perIp: Limit | undefined;
  /** By API key: its limit and the id it is counted under. */
  private readonly perKey = new Map<string, { limit: Limit; id: string }>();

  constructor(
    private readonly config: RateLimitConfig,
    keys: readonly ApiKeyConfig[],
    private readonly redis: Redis | undefined,
    private readonly logger: Logger,
  ) {
    this.perIp = config.perIp > 0 ? this.limit('ip', config.perIp) : undefined;
    const byPoints = new Map<number, Limit>();
    for (const key of keys) {
      const points = key.rateLimit ?? config.perKey;
      if (points === 0) continue;
      let limit = byPoints.get(points);
      if (!limit) byPoints.set(points, (limit = this.limit('key', points)));
      this.perKey.set(key.key, { limit, id: keyId(key.key) });
    }
  }

  get active(): boolean {
    return this.perIp !== undefined || this.perKey.size > 0;
  }

  /**
   * Charges `cost` to the address bucket `ipId` and the key; rejects with a rateLimited AccessRefusal when
   * either is spent. Undefined when neither limits this caller (nothing to wait for).
   */
  consume(ipId: string, apiKey: string | undefined, cost: number): Promise<void> | undefined {
    const keyed = apiKey === undefined ? undefined : this.perKey.get(apiKey);
    if (!keyed) return this.perIp && this.charge(this.perIp, ipId, cost);
    if (!this.perIp) return this.charge(keyed.limit, keyed.id, cost);
    return Promise.all([this.charge(this.perIp, ipId, cost), this.charge(keyed.limit, keyed.id, cost)]).then(() => undefined);
  }

  private async charge(limit: Limit, id: string, cost: number): Promise<void> {
    try {
      await limit.limiter.consume(id, cost);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) {
        // The store failed and so did the insurance: let the call through rather than fail it.
        this.logger.warn({ err: (err as Error).message }, 'rate limiter failed; call let through');
        return;
      }
      accessMetrics.rateLimited.labels(limit.scope).inc();
      const what = limit.scope === 'ip' ? 'per client address' : 'for this API key';
      throw new AccessRefusal(
        'rateLimited',
        `rate limit exceeded: at most ${limit.points} calls per ${this.config.windowSeconds} s ${what}`,
        Math.max(1, Math.ceil(err.msBeforeNext / 1000)),
      );
    }
  }

  private limit(scope: Scope, points: number): Limit {
    const duration = this.config.windowSeconds;
    return { limiter: limiterOf(this.redis, points, duration, `ethgate:rl:${scope}:${points}:${duration}`), points, scope };
  }
}

/**
 * Refused API keys and operator tokens per address and minute (shared through Redis when configured). The
 * access layer blocks an address that spent its allowance until the minute ends, so that keys cannot be
 * guessed: every request from it carrying a key or token is then refused 429.
 */
export class KeyFailures {
  private readonly limiter: RateLimiterAbstract;

  constructor(
    private readonly perMinute: number,
    redis: Redis | undefined,
  ) {
    // Room past the allowance, so that the count goes on (and keeps the window) after it is spent.
    this.limiter = limiterOf(redis, perMinute * 1000, 60, `ethgate:keyfail:${perMinute}`);
  }

  /** Counts one refused key or token; gives the ms left in the minute once the allowance is spent. */
  async record(ipId: string): Promise<number | undefined> {
    try {
      const res = await this.limiter.consume(ipId, 1);
      return res.consumedPoints >= this.perMinute ? res.msBeforeNext : undefined;
    } catch (err) {
      return err instanceof RateLimiterRes ? err.msBeforeNext : undefined;
    }
  }
}
