/**
 * The gateway's Redis connection (REDIS_URL), shared by the result cache and the rate limits. Commands fail
 * at once while Redis is away (no offline queue) so that a request never waits on it: the cache then
 * misses and the rate limits fall back to in-process counting.
 */
import { Redis } from 'ioredis';
import type { Logger } from '../shared/logger.js';

const READY_TIMEOUT_MS = 5_000;

export async function connectRedis(url: string, logger: Logger): Promise<Redis> {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
  let lastError = '';
  redis.on('error', (err: Error) => {
    // ioredis reconnects by itself; say so once per distinct failure rather than on every attempt.
    if (err.message === lastError) return;
    lastError = err.message;
    logger.warn({ err: err.message }, 'Redis connection trouble');
  });
  redis.on('ready', () => {
    lastError = '';
  });
  const ready = redis.connect().then(
    () => true,
    () => false,
  );
  const timedOut = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), READY_TIMEOUT_MS).unref());
  if (!(await Promise.race([ready, timedOut]))) {
    logger.warn('Redis not reachable at start; the gateway runs without it until it is');
  }
  return redis;
}
