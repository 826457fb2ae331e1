/**
 * Keeps every projection caught up with the event log: one catch-up pass at start, then another whenever
 * the event store announces new events (appended here or, on PostgreSQL, by another instance). Passes never
 * overlap within a process, and each step moves every projection in one transaction over one read of the
 * log, so the read models stay in step with each other. `waitFor(position)` lets a command handler answer only once its events are
 * visible in the read models (read-your-writes), within a deadline: a read model that cannot catch up (a
 * step that keeps failing, a database that does not answer) must not hold the writer's answer for ever.
 * The deadlines are not a timer each: waiters wait in the order they came, and so of their deadlines, and
 * one timer is armed for the oldest.
 */
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { EventStore } from '../store/types.js';
import type { Projection, ReadModelStore } from './models/types.js';
import type { Logger } from '../../shared/logger.js';

export interface RunnerOptions {
  /** Events per step (one transaction). */
  batchSize?: number;
  /** How long waitFor waits before it rejects with ReadModelsBehind (READ_MODELS_WAIT_MS; default 5000). */
  waitMs?: number;
}

/** waitFor's rejection: the read models did not reach the position in time, or the runner stopped. */
export class ReadModelsBehind extends Error {
  constructor(
    readonly position: number,
    readonly reached: number,
    why: string,
  ) {
    super(`the read models are at position ${reached}, not ${position}: ${why}`);
  }
}

interface Waiter {
  position: number;
  /** performance.now() past which it is rejected. */
  deadline: number;
  resolve: () => void;
  reject: (err: ReadModelsBehind) => void;
}

export class ProjectionRunner extends EventEmitter {
  private readonly checkpoints = new Map<string, number>();
  /** In the order they came, so in the order of their deadlines. */
  private waiters: Waiter[] = [];
  /** Armed for the oldest waiter's deadline while any waits. */
  private deadlineTimer: NodeJS.Timeout | undefined;
  private readonly waitMs: number;
  private pass: Promise<void> | undefined;
  private again = false;
  private unsubscribe: (() => void) | undefined;
  private stopped = false;
  private readonly batchSize: number;

  constructor(
    private readonly events: EventStore,
    readonly store: ReadModelStore,
    readonly projections: Projection<any>[],
    private readonly logger: Logger,
    options: RunnerOptions = {},
  ) {
    super();
    this.batchSize = options.batchSize ?? 1_000;
    this.waitMs = options.waitMs ?? 5_000;
  }

  async start(): Promise<void> {
    for (const projection of this.projections) {
      await this.store.prepare(projection);
      this.checkpoints.set(projection.name, await this.store.checkpoint(projection.name));
    }
    this.unsubscribe = this.events.subscribe(() => this.schedule());
    await this.catchUp();
  }

  /** The lowest checkpoint of all projections: every read model reflects the log up to here. */
  get position(): number {
    return Math.min(...this.projections.map((p) => this.checkpoints.get(p.name) ?? 0));
  }

  checkpoint(name: string): number {
    return this.checkpoints.get(name) ?? 0;
  }

  /** Runs passes until no projection has anything left to read. */
  catchUp(): Promise<void> {
    this.schedule();
    return this.pass ?? Promise.resolve();
  }

  /**
   * Resolves once every read model reflects the log at least up to `position`; rejects with ReadModelsBehind
   * when they do not within `waitMs`, or when the runner stops first.
   */
  waitFor(position: number): Promise<void> {
    if (this.position >= position) return Promise.resolve();
    if (this.stopped) return Promise.reject(new ReadModelsBehind(position, this.position, 'the read models are stopped'));
    this.schedule();
    return new Promise((resolve, reject) => {
      this.waiters.push({ position, deadline: performance.now() + this.waitMs, resolve, reject });
      this.armDeadline();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(new ReadModelsBehind(w.position, this.position, 'the read models stopped'));
    await this.pass;
  }

  /** Arms the timer for the oldest waiter's deadline, unless it is armed (it then re-arms when it fires). */
  private armDeadline(): void {
    if (this.deadlineTimer || this.waiters.length === 0) return;
    this.deadlineTimer = setTimeout(this.expire, Math.max(0, this.waiters[0].deadline - performance.now()));
    this.deadlineTimer.unref();
  }

  /** Rejects the waiters past their deadline. */
  private readonly expire = (): void => {
    this.deadlineTimer = undefined;
    const now = performance.now();
    let late = 0;
    while (late < this.waiters.length && this.waiters[late].deadline <= now) late++;
    if (late > 0) {
      const expired = this.waiters.splice(0, late);
      const reached = this.position;
      this.logger.warn({ waiters: late, position: reached, waitMs: this.waitMs }, 'read models did not catch up in time');
      for (const w of expired) w.reject(new ReadModelsBehind(w.position, reached, `not within ${this.waitMs} ms`));
    }
    this.armDeadline();
  };

  private schedule(): void {
    if (this.stopped) return;
    if (this.pass) {
      this.again = true;
      return;
    }
    this.pass = this.run().finally(() => {
      this.pass = undefined;
      if (this.again) this.schedule();
    });
  }

  private async run(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.drain();
      } catch (err) {
        // The step's transaction rolled back; the next announcement (or restart) tries again.
        this.logger.error({ err }, 'projection step failed');
      }
      this.release();
    } while (this.again && !this.stopped);
  }

  /** Steps every projection together, a batch of events at a time, until the log has nothing more. */
  private async drain(): Promise<void> {
    for (;;) {
      const result = await this.store.step(this.projections, (after) => this.events.readAll(after, this.batchSize));
      for (const projection of this.projections) {
        const before = this.checkpoints.get(projection.name) ?? 0;
        const now = result.checkpoints[projection.name] ?? before;
        this.checkpoints.set(projection.name, now);
        if (now !== before) this.emit('advanced', projection.name, now);
      }
      if (result.events < this.batchSize) return;
    }
  }

  private release(): void {
    if (this.waiters.length === 0) return;
    const position = this.position;
    const waiting: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.position <= position) w.resolve();
      else waiting.push(w);
    }
    this.waiters = waiting;
  }
}
