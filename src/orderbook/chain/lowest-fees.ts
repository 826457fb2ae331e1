/**
 * The lowest unexpired fee of each sell token, in amortised O(1) per quote and bounded in size: the fee rule
 * ("an order whose feeAmount is below the lowest unexpired quote of its sell token is InsufficientFee")
 * needs only that minimum, not every quote given. Pure, no I/O.
 *
 * Per token, a queue of candidates ordered by expiry whose fees rise from front to back (a sliding-window
 * minimum): a new quote first drops from the back every candidate whose fee is not below its own (the new
 * one is as low and lives longer), and the front, once expired, leaves. The front is then the lowest
 * unexpired fee. Quotes all live the same TTL, so expiries arrive in order.
 *
 * Bound: candidates whose expiries fall in the same bucket (`bucketMs`) are one: a quote that would join
 * the back's bucket with a higher fee is not kept. Each token thus holds at most TTL / bucket + 1
 * candidates, whatever the number of quotes; the price of the bound is that such a quote does not count
 * for the rule in the last bucket of its life, after the lower one before it expired (the rule is
 * stricter by less than one bucket, never looser). Tokens are those the configuration prices, so their
 * number is bounded too.
 */

interface Candidate<Q> {
  fee: bigint;
  expiresAt: number;
  quote: Q;
}

/** A queue over an array that drops its front by moving an index (compacted when half is dead). */
class Window<Q> {
  private items: Candidate<Q>[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  front(): Candidate<Q> | undefined {
    return this.items[this.head];
  }

  at(i: number): Candidate<Q> | undefined {
    return this.items[this.head + i];
  }

  back(): Candidate<Q> | undefined {
    return this.size > 0 ? this.items[this.items.length - 1] : undefined;
  }

  shift(): void {
    this.head++;
    if (this.head > 32 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  pop(): void {
    this.items.pop();
    if (this.items.length <= this.head) {
      this.items = [];
      this.head = 0;
    }
  }

  push(candidate: Candidate<Q>): void {
    this.items.push(candidate);
  }
}

export class LowestFees<Q> {
  private readonly windows = new Map<string, Window<Q>>();

  /** `bucketMs`: the expiry granularity of the bound (see above); 0 keeps every candidate. */
  constructor(private readonly bucketMs: number) {}

  /** Keeps `quote` of `token` (fee, expiry in ms since the epoch); candidates expired at `now` leave. */
  add(token: string, fee: bigint, expiresAt: number, quote: Q, now: number): void {
    let window = this.windows.get(token);
    if (!window) this.windows.set(token, (window = new Window<Q>()));
    this.expire(window, now);
    for (let back = window.back(); back && back.fee >= fee && back.expiresAt <= expiresAt; back = window.back()) window.pop();
    const back = window.back();
    if (back && (back.expiresAt >= expiresAt || this.sameBucket(back.expiresAt, expiresAt))) return;
    window.push({ fee, expiresAt, quote });
  }

  /**
   * The quote with the lowest fee among those of `token` unexpired at `at`. Candidates expired at `now`
   * leave; those expired at an earlier `at` only are skipped.
   */
  lowest(token: string, at: number, now: number): Q | undefined {
    const window = this.windows.get(token);
    if (!window) return undefined;
    this.expire(window, now);
    if (window.size === 0) {
      this.windows.delete(token);
      return undefined;
    }
    for (let i = 0; i < window.size; i++) {
      const candidate = window.at(i)!;
      if (candidate.expiresAt > at) return candidate.quote;
    }
    return undefined;
  }

  /** Candidates kept for `token` (for tests of the bound). */
  size(token: string): number {
    return this.windows.get(token)?.size ?? 0;
  }

  private expire(window: Window<Q>, now: number): void {
    for (let front = window.front(); front && front.expiresAt <= now; front = window.front()) window.shift();
  }

  private sameBucket(a: number, b: number): boolean {
    return this.bucketMs > 0 && Math.floor(a / this.bucketMs) === Math.floor(b / this.bucketMs);
  }
}
