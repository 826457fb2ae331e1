/**
 * Order validation off the event loop: validateOrderCreation (schema, rules, EIP-712 digest, signature
 * recovery) is pure and the costliest step of order intake, so it runs on worker threads while the main
 * thread serves HTTP, appends events and steps the read models. Orders arriving in the same turn of the
 * event loop go to the least busy worker as one message (shared/turn-batcher.ts); refusals come back as the
 * same OrderbookError.
 *
 * A worker that stops (a crash, an exit, an uncaught error) fails the jobs it held, and only those: the
 * other workers' jobs go on, and a new worker takes its place. Its jobs are not sent again: one of them may
 * be what stopped it, and would stop the next worker too.
 */
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { OrderbookError } from '../../domain/errors.js';
import type { OrderValidationContext, ValidatedOrder } from '../../domain/order.js';
import type { ValidationJob, ValidationOutcome } from './worker.js';
import { TurnBatcher, type Outcome } from '../../../shared/turn-batcher.js';

/** A message sent to a worker and not answered yet. */
interface Sent {
  jobs: number;
  resolve(outcomes: Outcome<ValidatedOrder>[]): void;
  reject(err: Error): void;
}

/** One worker thread and the messages it holds, oldest first (a worker answers them in order). */
interface PoolWorker {
  thread: Worker;
  sent: Sent[];
  /** Jobs sent and not answered, to give the next batch to the least busy worker. */
  load: number;
}

/** Workers for a machine: all cores but the one the event loop needs, and at least one. */
function defaultValidationWorkers(): number {
  return Math.max(1, availableParallelism() - 1);
}

export class ValidationPool {
  private readonly workers: PoolWorker[];
  private readonly batcher = new TurnBatcher<ValidationJob, ValidatedOrder>((jobs) => this.dispatch(jobs));
  private closed = false;

  constructor(size = defaultValidationWorkers()) {
    this.workers = Array.from({ length: size }, () => this.spawn());
  }

  /** A worker; one that stops unexpectedly fails what it holds and is replaced. */
  private spawn(): PoolWorker {
    const worker: PoolWorker = { thread: new Worker(new URL('./worker.js', import.meta.url)), sent: [], load: 0 };
    worker.thread.on('message', (outcomes: ValidationOutcome[]) => this.answered(worker, outcomes));
    worker.thread.on('error', (err) => this.fail(worker, err));
    worker.thread.on('exit', () => {
      this.fail(worker, new Error(this.closed ? 'the validation pool is closed' : 'an order validation worker stopped'));
      const i = this.workers.indexOf(worker);
      if (!this.closed && i >= 0) this.workers[i] = this.spawn();
    });
    // Idle workers must not keep the process alive; pending jobs keep it busy anyway.
    worker.thread.unref();
    return worker;
  }

  /** validateOrderCreation(body, context) on a worker: the same result, or the same OrderbookError. */
  validate(body: unknown, context: OrderValidationContext): Promise<ValidatedOrder> {
    if (this.closed) return Promise.reject(new Error('the validation pool is closed'));
    return this.batcher.add({ body, context });
  }

  async close(): Promise<void> {
    this.closed = true;
    const closed = new Error('the validation pool is closed');
    this.batcher.failWaiting(closed);
    for (const worker of this.workers) this.fail(worker, closed);
    await Promise.all(this.workers.map((w) => w.thread.terminate()));
  }

  /**
   * The batcher's flush: a turn's jobs to the least busy worker in one message. A batch that cannot be
   * handed to a worker (postMessage clones it, recursively) is sent job by job, and a job that still cannot
   * be sent fails alone.
   */
  private dispatch(jobs: ValidationJob[]): Outcome<ValidatedOrder>[] | Promise<Outcome<ValidatedOrder>[]> {
    if (this.closed) throw new Error('the validation pool is closed');
    try {
      return this.post(jobs);
    } catch {
      return jobs.map((job) => {
        try {
          return this.post([job]).then(([outcome]) => (outcome instanceof Error ? Promise.reject(outcome) : outcome));
        } catch {
          return new Error('the order could not be handed to a validation worker');
        }
      });
    }
  }

  /** Sends `jobs` to the least busy worker; throws when they cannot be sent. */
  private post(jobs: ValidationJob[]): Promise<Outcome<ValidatedOrder>[]> {
    let worker = this.workers[0];
    for (const w of this.workers) if (w.load < worker.load) worker = w;
    worker.thread.postMessage(jobs);
    worker.load += jobs.length;
    return new Promise((resolve, reject) => worker.sent.push({ jobs: jobs.length, resolve, reject }));
  }

  private answered(worker: PoolWorker, outcomes: ValidationOutcome[]): void {
    const sent = worker.sent.shift();
    if (!sent) return;
    worker.load -= sent.jobs;
    sent.resolve(outcomes.map(toOutcome));
  }

  /** Fails what `worker` holds: its jobs alone. */
  private fail(worker: PoolWorker, err: Error): void {
    const sent = worker.sent;
    worker.sent = [];
    worker.load = 0;
    for (const message of sent) message.reject(err);
  }
}

function toOutcome(outcome: ValidationOutcome): Outcome<ValidatedOrder> {
  if ('order' in outcome) return outcome.order;
  if ('refusal' in outcome) {
    const { code, description } = outcome.refusal;
    return new OrderbookError(code, description);
  }
  return new Error(`order validation failed: ${outcome.fault}`);
}
