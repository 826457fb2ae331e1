/**
 * Order validation off the event loop: validateOrderCreation (schema, rules, EIP-712 digest, signature
 * recovery) is pure and the costliest step of order intake, so it runs on worker threads while the main
 * thread serves HTTP, appends events and steps the read models. Orders arriving in the same turn of the
 * event loop go to a worker as one message; refusals come back as the same OrderbookError.
 */
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { OrderbookError } from '../../domain/errors.js';
import type { OrderValidationContext, ValidatedOrder } from '../../domain/order.js';
import type { ValidationJob, ValidationOutcome } from './worker.js';
import { InFlight } from '../../../shared/in-flight.js';

interface Pending {
  resolve(order: ValidatedOrder): void;
  reject(err: Error): void;
}

/** Workers for a machine: all cores but the one the event loop needs, and at least one. */
function defaultValidationWorkers(): number {
  return Math.max(1, availableParallelism() - 1);
}

export class ValidationPool {
  private readonly workers: Worker[];
  /** By job id; not a Map, see in-flight.ts. */
  private readonly pending = new InFlight<Pending>();
  /** Jobs sent to each worker and not answered yet, to give the next batch to the least busy. */
  private readonly load: number[];
  private queued: ValidationJob[] = [];
  private nextId = 1;
  private closed = false;

  constructor(size = defaultValidationWorkers()) {
    this.load = Array.from({ length: size }, () => 0);
    this.workers = this.load.map((_, i) => this.spawn(i));
  }

  /** Worker `i`; one that stops unexpectedly fails what is pending and is replaced. */
  private spawn(i: number): Worker {
    const worker = new Worker(new URL('./worker.js', import.meta.url));
    worker.on('message', (outcomes: ValidationOutcome[]) => this.settle(i, outcomes));
    worker.on('error', (err) => this.failAll(err));
    worker.on('exit', () => {
      if (this.closed) return;
      this.failAll(new Error('an order validation worker stopped'));
      this.load[i] = 0;
      this.workers[i] = this.spawn(i);
    });
    // Idle workers must not keep the process alive; pending jobs keep it busy anyway.
    worker.unref();
    return worker;
  }

  /** validateOrderCreation(body, context) on a worker: the same result, or the same OrderbookError. */
  validate(body: unknown, context: OrderValidationContext): Promise<ValidatedOrder> {
    if (this.closed) return Promise.reject(new Error('the validation pool is closed'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.queued.length === 0) setImmediate(() => this.dispatch());
      this.queued.push({ id, body, context });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.failAll(new Error('the validation pool is closed'));
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  /**
   * Runs in a setImmediate callback, where a throw would end the process: a batch that cannot be handed to
   * a worker (postMessage clones it, recursively) is sent job by job, and a job that still cannot be sent
   * fails alone.
   */
  private dispatch(): void {
    const jobs = this.queued;
    this.queued = [];
    if (jobs.length === 0 || this.closed) return;
    if (this.post(jobs)) return;
    for (const job of jobs) {
      if (this.post([job])) continue;
      const pending = this.pending.get(job.id);
      this.pending.delete(job.id);
      pending?.reject(new Error('the order could not be handed to a validation worker'));
    }
  }

  /** Sends `jobs` to the least busy worker; false when they could not be sent. */
  private post(jobs: ValidationJob[]): boolean {
    const i = this.load.indexOf(Math.min(...this.load));
    try {
      this.workers[i].postMessage(jobs);
    } catch {
      return false;
    }
    this.load[i] += jobs.length;
    return true;
  }

  private settle(worker: number, outcomes: ValidationOutcome[]): void {
    this.load[worker] -= outcomes.length;
    for (const outcome of outcomes) {
      const pending = this.pending.get(outcome.id);
      if (!pending) continue;
      this.pending.delete(outcome.id);
      if ('order' in outcome) pending.resolve(outcome.order);
      else if ('refusal' in outcome) {
        const { code, description } = outcome.refusal;
        pending.reject(new OrderbookError(code, description));
      } else pending.reject(new Error(`order validation failed: ${outcome.fault}`));
    }
  }

  private failAll(err: Error): void {
    for (const pending of this.pending.values()) pending.reject(err);
    this.pending.clear();
  }
}
