/**
 * Hedged reads, as eRPC's hedge policy has them: when the upstream asked first has not answered a read
 * within the p-quantile of that method's recent latencies (the time its reads took to be answered, clamped
 * between a floor and a ceiling),
 * the next upstream is asked as well and the first answer wins. This trims the tail an upstream's slow
 * moments add; the cost is the extra calls, which the caller's rate limit pays. Pure rules: which calls may
 * be hedged, the delay, and the recent latencies it is drawn from. The pool (upstream/pool.ts) does the I/O;
 * there an answer saying the node is behind does not end the race (failsafe/policy.ts), a transport fault
 * moves on to the next upstream at once, as without hedging.
 */
import { isRead } from './policy.js';

/** HEDGE_* settings (schemas/config.schema.json, HedgeConfig). */
export interface HedgeSettings {
  /** HEDGE_QUANTILE: the quantile of recent latencies after which another upstream is asked; 0 turns hedging off. */
  quantile: number;
  /** HEDGE_MAX: other upstreams asked at most, one after another, per call. */
  max: number;
  /** HEDGE_MIN_DELAY_MS: never sooner than this (and this until enough latencies are known). */
  minDelayMs: number;
  /** HEDGE_MAX_DELAY_MS: never later than this. */
  maxDelayMs: number;
}

/** Charges a hedge to the caller's rate limits: rejects when they are spent (see access/access.ts). */
export type HedgeCharge = (cost: number) => Promise<void> | undefined;

export function hedgingOn(settings: HedgeSettings | undefined): settings is HedgeSettings {
  return settings !== undefined && settings.quantile > 0 && settings.max > 0;
}

/**
 * Whether a call may be hedged: reads only. A write (eth_sendRawTransaction, ...) is never sent twice on a
 * timer, since a second node's answer ("already known") would replace the first's; filter calls are tied
 * to the node that holds the filter; a method an operator added is treated as a write.
 */
export function mayHedge(method: string): boolean {
  return isRead(method);
}

/** The delay before the next upstream is asked: the quantile when known, clamped to [min, max]. */
export function hedgeDelayMs(quantileMs: number | undefined, settings: HedgeSettings): number {
  const wanted = quantileMs ?? settings.minDelayMs;
  return Math.min(settings.maxDelayMs, Math.max(settings.minDelayMs, wanted));
}

/** Latencies kept per method, and how many are needed before their quantile counts. */
const WINDOW = 512;
const MIN_SAMPLES = 20;
/** The quantile is worked out again after this many new samples, not on every call. */
const REFRESH_EVERY = 64;

/**
 * The last WINDOW answer times of one method on one network. Recording costs one array write; the
 * quantile is sorted out at most once every REFRESH_EVERY records and kept in between.
 */
export class RecentLatencies {
  private readonly samples = new Float64Array(WINDOW);
  private count = 0;
  private next = 0;
  private sinceRefresh = 0;
  private cached: number | undefined;

  constructor(private readonly q: number) {}

  record(ms: number): void {
    this.samples[this.next] = ms;
    this.next = (this.next + 1) % WINDOW;
    if (this.count < WINDOW) this.count++;
    this.sinceRefresh++;
  }

  /** The q-quantile (nearest rank) in milliseconds; undefined with fewer than MIN_SAMPLES samples. */
  quantile(): number | undefined {
    if (this.count < MIN_SAMPLES) return undefined;
    if (this.cached === undefined || this.sinceRefresh >= REFRESH_EVERY) {
      const sorted = this.samples.slice(0, this.count).sort();
      this.cached = sorted[Math.min(this.count - 1, Math.max(0, Math.ceil(this.q * this.count) - 1))];
      this.sinceRefresh = 0;
    }
    return this.cached;
  }
}
