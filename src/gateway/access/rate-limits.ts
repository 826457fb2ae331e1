/**
 * Rate limits per client address and per API key, counted in JSON-RPC calls (a batch of n costs n) over a
 * fixed window. Counters live in process, or in Redis when it is configured so that every gateway instance
 * counts against the same budget; while Redis is away each instance counts on its own (the insurance
 * limiter) rather than refusing or waving everything through.
 */
import { createHash } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { ApiKeyConfig, RateLimitConfig } from '../../generated/config.js';
import type { Logger } from '../../shared/logger.js';
import { rpcErrors } from '../errors.js';
import { metrics } from '../metrics.js';

type Scope = 'ip' | 'key';

interface Limit {
  limiter: RateLimiterAbstract;
  points: number;
  scope: Scope;
}

export class RateLimits {
  private readonly perIp: Limit | undefined;
  /** By API key: its limit and the id it is counted under (a hash, so keys never reach Redis). */
  private readonly perKey = new Map<string, { limit: Limit; id: string }>();

  constructor(
    private readonly config: RateLimitConfig,
    keys: ApiKeyConfig[],
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
      this.perKey.set(key.key, { limit, id: createHash('sha256').update(key.key).digest('hex').slice(0, 32) });
    }
  }

  get active(): boolean {
    return this.perIp !== undefined || this.perKey.size > 0;
  }

  /** Charges `cost` calls to the address and the key; throws the 429 RpcError when either is spent. */
  async consume(ip: string, apiKey: string | undefined, cost: number): Promise<void> {
    const keyed = apiKey === undefined ? undefined : this.perKey.get(apiKey);
    await Promise.all([
      this.perIp && this.charge(this.perIp, ip, cost),
      keyed && this.charge(keyed.limit, keyed.id, cost),
    ]);
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
      metrics.rateLimited.labels(limit.scope).inc();
      const what = limit.scope === 'ip' ? 'per client address' : 'for this API key';
      throw rpcErrors.rateLimited(
        `at most ${limit.points} calls per ${this.config.windowSeconds} s ${what}`,
        Math.max(1, Math.ceil(err.msBeforeNext / 1000)),
      );
    }
  }

  private limit(scope: Scope, points: number): Limit {
    const duration = this.config.windowSeconds;
    const keyPrefix = `ethgate:rl:${scope}:${points}:${duration}`;
    const memory = new RateLimiterMemory({ points, duration, keyPrefix });
    const limiter = this.redis
      ? new RateLimiterRedis({
          storeClient: this.redis,
          points,
          duration,
          keyPrefix,
          rejectIfRedisNotReady: true,
          insuranceLimiter: memory,
        })
      : memory;
    return { limiter, points, scope };
  }
}
