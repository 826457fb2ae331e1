/**
 * Turns at a piece of main-thread work shared by many clients (catch-up pages of event streams): at most
 * `size` at once, and at most `size` started per turn of the event loop, the others waiting in order.
 * Turns are only ever granted from a setImmediate callback, never in the chain of promise callbacks of the
 * one that ended, so that the service reads the network (answers other requests) between two rounds of
 * pages however many clients catch up: 500 streams reading the log from the start cost everyone else
 * `size` pages' work at a time, not 500 pages'.
 */
export class Turns {
  private active = 0;
  private scheduled = false;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  /** Resolves with the function that gives the turn back (once) when it is this caller's turn. */
  take(): Promise<() => void> {
    return new Promise((resolve) => {
      this.waiting.push(() => {
        let given = false;
        resolve(() => {
          if (given) return;
          given = true;
          this.active--;
          this.schedule();
        });
      });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0 || this.active >= this.size) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      for (let started = 0; started < this.size && this.active < this.size && this.waiting.length > 0; started++) {
        this.active++;
        this.waiting.shift()!();
      }
    });
  }
}
