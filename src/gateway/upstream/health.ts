/**
 * The health of one upstream as plain state, without I/O: its recent error rate over a sliding window and
 * the rules that take it out of rotation or put it back. The pool feeds it call outcomes and health-check
 * results and acts on what it decides.
 */

/**
 * Failures and totals over the last `windowMs`, in `slots` time slices: old slices are dropped as time moves
 * on, so the rate follows recent traffic without keeping one entry per call.
 */
export class ErrorWindow {
  private readonly slotMs: number;
  private readonly failures: number[];
  private readonly totals: number[];
  /** Index (time / slotMs) of the newest slice written. */
  private newest = 0;

  constructor(windowMs: number, private readonly slots = 10) {
    this.slotMs = Math.max(1, Math.ceil(windowMs / slots));
    this.failures = new Array(slots).fill(0);
    this.totals = new Array(slots).fill(0);
  }

  record(failed: boolean, now: number): void {
    const slot = this.advance(now);
    this.totals[slot]++;
    if (failed) this.failures[slot]++;
  }

  /** Failures and calls within the window ending at `now`. */
  counts(now: number): { failures: number; total: number } {
    this.advance(now);
    let failures = 0;
    let total = 0;
    for (let i = 0; i < this.slots; i++) {
      failures += this.failures[i];
      total += this.totals[i];
    }
    return { failures, total };
  }

  reset(): void {
    this.failures.fill(0);
    this.totals.fill(0);
  }

  /** Clears the slices that time has passed over and returns the slot for `now`. */
  private advance(now: number): number {
    const index = Math.floor(now / this.slotMs);
    if (index !== this.newest) {
      const passed = Math.min(index - this.newest, this.slots);
      for (let i = 1; i <= passed; i++) {
        const slot = (this.newest + i) % this.slots;
        this.failures[slot] = 0;
        this.totals[slot] = 0;
      }
      this.newest = index;
    }
    return index % this.slots;
  }
}

export interface HealthRules {
  maxLagBlocks: number;
  maxErrorRate: number;
  minSamples: number;
}

/** Whether recent failures are reason to take an upstream out. */
export function tooManyErrors(counts: { failures: number; total: number }, rules: HealthRules): boolean {
  return counts.total >= rules.minSamples && counts.failures / counts.total > rules.maxErrorRate;
}

/** Blocks an upstream is behind the best head, when that is more than allowed; else undefined. */
export function excessLag(head: number, bestHead: number, rules: HealthRules): number | undefined {
  const lag = bestHead - head;
  return lag > rules.maxLagBlocks ? lag : undefined;
}

/**
 * Smooth weighted round robin (as nginx does it): over n picks each candidate is chosen in proportion to
 * its weight, and picks of one candidate are spread out rather than bunched. `current` holds the running
 * scores, one per candidate, and is updated in place.
 */
export function weightedPick(weights: readonly number[], current: number[]): number {
  let best = 0;
  let total = 0;
  for (let i = 0; i < weights.length; i++) {
    current[i] += weights[i];
    total += weights[i];
    if (current[i] > current[best]) best = i;
  }
  current[best] -= total;
  return best;
}

/** Longest an upstream stays "busy" (tried last), whatever its Retry-After says. */
export const MAX_BUSY_BACKOFF_MS = 60_000;

/**
 * How long an upstream that said it is busy is tried last: `baseMs` the first time, twice the previous
 * backoff while it stays busy, at least what its Retry-After asked, never above MAX_BUSY_BACKOFF_MS.
 */
export function busyBackoff(previousMs: number, baseMs: number, retryAfterMs: number | undefined): number {
  const doubled = previousMs > 0 ? previousMs * 2 : baseMs;
  return Math.min(MAX_BUSY_BACKOFF_MS, Math.max(doubled, retryAfterMs ?? 0));
}
