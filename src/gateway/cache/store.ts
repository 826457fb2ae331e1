/**
 * Where final results are kept: an in-process LRU bounded by the bytes of their JSON, and optionally Redis,
 * shared by every gateway instance. A read looks in memory, then Redis (copying a Redis hit into memory);
 * a write goes to both. Redis trouble never fails a request: it counts as a miss and is logged at most once
 * a minute.
 */
import { LRUCache } from 'lru-cache';
import type { Redis } from 'ioredis';
import type { Logger } from '../../shared/logger.js';
import { metrics } from '../metrics.js';

export interface ResultCacheOptions {
  /** In-process budget in bytes of JSON; 0 keeps nothing in process. */
  maxBytes: number;
  redis?: Redis;
  redisTtlSeconds: number;
  /** Keeps instances of different deployments (or chains) apart in a shared Redis. */
  redisPrefix: string;
  logger: Logger;
}

export type CacheTier = 'memory' | 'redis';

/** A cached result, parsed and as JSON text (spliced into replies, see jsonrpc.ts serializeResponse). */
export interface CachedResult {
  value: unknown;
  text: string;
}

interface Entry extends CachedResult {
  size: number;
}

const REDIS_COMPLAINT_INTERVAL_MS = 60_000;

export class ResultCache {
  private readonly memory: LRUCache<string, Entry> | undefined;
  private lastComplaint = 0;

  constructor(private readonly options: ResultCacheOptions) {
    this.memory =
      options.maxBytes > 0
        ? new LRUCache<string, Entry>({ maxSize: options.maxBytes, sizeCalculation: (entry) => entry.size })
        : undefined;
  }

  get enabled(): boolean {
    return this.memory !== undefined || this.options.redis !== undefined;
  }

  /** The in-process entry, synchronously (the common hit needs no promise). */
  fromMemory(key: string): CachedResult | undefined {
    return this.memory?.get(key);
  }

  /** The Redis entry, when Redis is configured and answers. */
  async fromRedis(key: string): Promise<CachedResult | undefined> {
    const redis = this.options.redis;
    if (!redis) return undefined;
    let text: string | null;
    try {
      text = await redis.get(this.options.redisPrefix + key);
    } catch (err) {
      this.redisTrouble('get', err);
      return undefined;
    }
    if (text === null) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.redisTrouble('get', err);
      return undefined;
    }
    const entry = { value, text, size: entrySize(key, text) };
    this.memory?.set(key, entry);
    return entry;
  }

  store(key: string, value: unknown): void {
    const text = JSON.stringify(value);
    this.memory?.set(key, { value, text, size: entrySize(key, text) });
    this.options.redis
      ?.set(this.options.redisPrefix + key, text, 'EX', this.options.redisTtlSeconds)
      .catch((err: unknown) => this.redisTrouble('set', err));
  }

  private redisTrouble(operation: 'get' | 'set', err: unknown): void {
    metrics.cacheErrors.labels(operation).inc();
    const now = Date.now();
    if (now - this.lastComplaint < REDIS_COMPLAINT_INTERVAL_MS) return;
    this.lastComplaint = now;
    this.options.logger.warn({ err: (err as Error).message, operation }, 'Redis cache unavailable; going on without it');
  }
}

/**
 * Bytes an entry holds, roughly: its key and JSON text (up to two bytes per character) and the parsed value
 * (about as much again).
 */
function entrySize(key: string, text: string): number {
  return 2 * key.length + 4 * text.length + 64;
}
