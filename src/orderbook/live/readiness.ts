/**
 * Whether the order book can take traffic, with hysteresis: its read models trail the log's head for a
 * moment after every write, which is no reason for a load balancer to pull the instance (every instance
 * trails alike during a burst of writes). It is ready while the read models were level with the head
 * within the last `maxLagMs`; it turns unready only when they have trailed for longer than that without
 * once catching up, and ready again as soon as they catch up. Pure state: the caller says when it looked.
 */
export class Readiness {
  /** When the read models were last seen level with the head; undefined: never yet (still replaying). */
  private levelAt: number | undefined;

  constructor(private readonly maxLagMs: number) {}

  /** Notes what was seen at `now`: the read models' position and the log's head. */
  observe(position: number, head: number, now: number): void {
    if (position >= head) this.levelAt = now;
  }

  /** Whether it is ready at `now`, having seen `position` and `head` then. */
  ready(position: number, head: number, now: number): boolean {
    this.observe(position, head, now);
    return this.levelAt !== undefined && now - this.levelAt <= this.maxLagMs;
  }
}
