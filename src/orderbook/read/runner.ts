/**
 * Keeps every projection caught up with the event log: one catch-up pass at start, then another whenever
 * the event store announces new events (appended here or, on PostgreSQL, by another instance). Passes never
 * overlap within a process, and each step moves every projection in one transaction over one read of the
 * log, so the read models stay in step with each other. `waitFor(position)` lets a command handler answer only once its events are
 * visible in the read models (read-your-writes).
 */
import { EventEmitter } from 'node:events';
import type { EventStore } from '../store/types.js';
import type { Projection, ReadModelStore } from './models/types.js';
import type { Logger } from '../../shared/logger.js';

export interface RunnerOptions {
  /** Events per step (one transaction). */
  batchSize?: number;
}

interface Waiter {
  position: number;
  resolve: () => void;
}

export class ProjectionRunner extends EventEmitter {
  private readonly checkpoints = new Map<string, number>();
  private readonly waiters: Waiter[] = [];
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

  /** Resolves once every read model reflects the log at least up to `position`. */
  waitFor(position: number): Promise<void> {
    if (this.position >= position) return Promise.resolve();
    this.schedule();
    return new Promise((resolve) => this.waiters.push({ position, resolve }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    await this.pass;
  }

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
    const position = this.position;
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i].position <= position) {
        this.waiters[i].resolve();
        this.waiters.splice(i, 1);
      }
    }
  }
}
