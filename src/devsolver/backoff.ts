/**
 * How long the dev solver leaves a pair of orders alone after it could not settle them (a settlement that
 * would revert, an owner without the funds): twice as long after each failure, up to a ceiling, so that a
 * pair that keeps failing costs a log line now and then, never a hot loop. Pure: time is given.
 */
export class Backoff {
  private readonly entries = new Map<string, { failures: number; until: number }>();

  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
    private readonly maxEntries: number,
  ) {}

  blocked(key: string, now: number): boolean {
    const entry = this.entries.get(key);
    return entry !== undefined && now < entry.until;
  }

  /** Records a failure; gives the time the key is left alone for. */
  failed(key: string, now: number): number {
    const failures = (this.entries.get(key)?.failures ?? 0) + 1;
    const delay = Math.min(this.maxMs, this.baseMs * 2 ** Math.min(failures - 1, 30));
    this.entries.delete(key);
    this.entries.set(key, { failures, until: now + delay });
    // The oldest failures go first when the table is full.
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return delay;
  }

  /** Forgets keys for which `keep` is false (orders that left the auction). */
  prune(keep: (key: string) => boolean): void {
    for (const key of this.entries.keys()) if (!keep(key)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
