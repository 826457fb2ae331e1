/**
 * A bound on how many of one kind of costly work run at once, all clients together, and on how many wait
 * for their turn: what waits beyond the queue is refused at once (GateFull), so that a flood from many
 * addresses (which per-client rate limits do not stop) holds a fixed amount of memory and of the event
 * loop's time, whatever its size. Waiters are served first come, first served. No I/O: the caller maps a
 * refusal to its own error.
 */

/** The gate's queue is full: the caller's work was not started. */
export class GateFull extends Error {}

export interface WorkGateOptions {
  /** Works running at once (at least 1). */
  concurrency: number;
  /** Works that may wait for a free place; one more is refused (0: none waits). */
  queue: number;
}

export class WorkGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly options: WorkGateOptions) {}

  /** Works running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Runs `work` when a place is free; rejects with GateFull, without running it, when none is and the queue is full. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= Math.max(1, this.options.concurrency)) {
      if (this.waiting.length >= this.options.queue) throw new GateFull('busy');
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await work();
    } finally {
      // The place passes to the first waiter, if any; otherwise it is freed.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
