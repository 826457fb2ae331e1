/**
 * One turn-batcher for every place that gathers what arrives in one turn of the event loop and hands it on
 * together (upstream JSON-RPC batches, order validation on worker threads, spendable-balance reads, the event
 * store's group commit), so that they share one failure rule instead of four. It does no I/O: it is given
 * the flush that does the work.
 *
 * The rule:
 * - Items added in one turn are flushed right after it (setImmediate), in the order they were added, at most
 *   `maxItems` to a flush. At most `concurrency` flushes run at once; items that arrive while none is free
 *   wait, and leave together in the turn after one ends.
 * - A flush answers with one outcome per item, in the items' order. An Error fails that item alone; any other
 *   value settles it with that value, and a promise settles it as the promise does (the item was handed on,
 *   e.g. sent again alone). An item the answer has no outcome for fails (TurnBatcherError).
 * - A flush that throws or rejects fails exactly its own items, with that error: never an item of another
 *   flush, and the items added after it are flushed as if nothing had happened.
 * - So every item added settles exactly once, and the batcher never stays stuck.
 */

/** What a flush answers for one item: its value, its own failure, or a promise of its value. */
export type Outcome<R> = R | Error | PromiseLike<R>;

/** Does the work for a batch: one outcome per item, in order, now or later. */
export type Flush<T, R> = (items: T[]) => readonly Outcome<R>[] | PromiseLike<readonly Outcome<R>[]>;

export interface TurnBatcherOptions {
  /** Items per flush (default: no limit). */
  maxItems?: number;
  /** Flushes in progress at once (default: no limit; 1: each batch waits for the one before it). */
  concurrency?: number;
}

/** An item the batcher failed itself: its flush gave no outcome for it. */
export class TurnBatcherError extends Error {}

interface Waiting<T, R> {
  item: T;
  resolve(value: R | PromiseLike<R>): void;
  reject(err: unknown): void;
}

export class TurnBatcher<T, R> {
  private readonly maxItems: number;
  private readonly concurrency: number;
  private waiting: Waiting<T, R>[] = [];
  private scheduled = false;
  /** In flushTurn: flushes that end meanwhile (synchronously) leave the scheduling to it. */
  private turning = false;
  private flushing = 0;
  private idleWaiters: (() => void)[] = [];
  private readonly run = (): void => this.flushTurn();

  constructor(
    private readonly flush: Flush<T, R>,
    options: TurnBatcherOptions = {},
  ) {
    this.maxItems = Math.max(1, options.maxItems ?? Infinity);
    this.concurrency = Math.max(1, options.concurrency ?? Infinity);
  }

  /** Items waiting for a flush (not those being flushed). */
  get size(): number {
    return this.waiting.length;
  }

  /** Adds `item` to this turn's batch; settles with its outcome. */
  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** Fails every item not handed to a flush yet (those being flushed settle as their flush says). */
  failWaiting(err: unknown): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) w.reject(err);
    this.wakeIfIdle();
  }

  /** Resolves once nothing waits and no flush is in progress. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled || this.flushing >= this.concurrency) return;
    this.scheduled = true;
    setImmediate(this.run);
  }

  private flushTurn(): void {
    this.scheduled = false;
    this.turning = true;
    while (this.waiting.length > 0 && this.flushing < this.concurrency) {
      const waiting = this.waiting;
      if (waiting.length <= this.maxItems) {
        this.waiting = [];
        this.start(waiting);
      } else {
        this.waiting = waiting.slice(this.maxItems);
        this.start(waiting.slice(0, this.maxItems));
      }
    }
    // What is left waits for a flush to end (done() schedules the next turn then).
    this.turning = false;
    this.wakeIfIdle();
  }

  private start(batch: Waiting<T, R>[]): void {
    this.flushing++;
    let answer: ReturnType<Flush<T, R>>;
    try {
      answer = this.flush(batch.map((w) => w.item));
    } catch (err) {
      this.fail(batch, err);
      return;
    }
    if (Array.isArray(answer)) this.settle(batch, answer);
    else {
      (answer as PromiseLike<readonly Outcome<R>[]>).then(
        (outcomes) => this.settle(batch, outcomes),
        (err: unknown) => this.fail(batch, err),
      );
    }
  }

  private settle(batch: Waiting<T, R>[], outcomes: readonly Outcome<R>[]): void {
    const given = Array.isArray(outcomes) ? outcomes.length : 0;
    for (let i = 0; i < batch.length; i++) {
      if (i >= given) {
        batch[i].reject(new TurnBatcherError(`the flush gave ${given} outcomes for ${batch.length} items`));
        continue;
      }
      const outcome = outcomes[i];
      if (outcome instanceof Error) batch[i].reject(outcome);
      // A native promise is followed directly: resolving with it would cost a job more to adopt it.
      else if (outcome instanceof Promise) outcome.then(batch[i].resolve, batch[i].reject);
      else batch[i].resolve(outcome);
    }
    this.done();
  }

  private fail(batch: Waiting<T, R>[], err: unknown): void {
    for (const w of batch) w.reject(err);
    this.done();
  }

  private done(): void {
    this.flushing--;
    if (this.turning) return;
    if (this.waiting.length > 0) this.schedule();
    else this.wakeIfIdle();
  }

  private isIdle(): boolean {
    return this.waiting.length === 0 && !this.scheduled && !this.turning && this.flushing === 0;
  }

  private wakeIfIdle(): void {
    if (this.idleWaiters.length === 0 || !this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }
}
