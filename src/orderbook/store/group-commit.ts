/**
 * Group commit: appends issued close together (in the same turn of the event loop, or while the previous
 * batch is being written) go to the database as one batch, written in one transaction, so that they share
 * one durable commit (one fsync) instead of paying for one each. Each append still gets its own outcome.
 */
import { prepareAppend, prepareGroup, type AppendOutcome, type PreparedGroup } from './append-plan.js';
import { ConcurrencyError, type AppendResult, type ExpectedVersion, type NewEvent, type StreamAppend } from './types.js';

/**
 * Writes a batch in one transaction and returns one outcome per group, in order. Throws when the batch
 * as a whole could not be written (then none of it was).
 */
export type BatchWriter = (batch: PreparedGroup[]) => Promise<AppendOutcome[]>;

interface Waiting {
  group: PreparedGroup;
  resolve(results: AppendResult[]): void;
  reject(err: unknown): void;
}

export class GroupCommitQueue {
  private waiting: Waiting[] = [];
  private scheduled = false;
  private writing: Promise<void> | undefined;
  private closed = false;

  /** `maxBatch` bounds one transaction's size (and the statement sizes in it). */
  constructor(
    private readonly write: BatchWriter,
    private readonly maxBatch = 1000,
  ) {}

  /** An EventStore's append: checked here (a bad append is refused on its own), then written with a batch. */
  append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    let group: PreparedGroup;
    try {
      group = [prepareAppend(streamId, events, expected)];
    } catch (err) {
      return Promise.reject(err as Error);
    }
    return this.enqueue(group).then((results) => results[0]);
  }

  /** An EventStore's appendStreams: checked here, then written with a batch, all parts or none. */
  appendStreams(appends: StreamAppend[]): Promise<AppendResult[]> {
    let group: PreparedGroup;
    try {
      group = prepareGroup(appends);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    return this.enqueue(group);
  }

  private enqueue(group: PreparedGroup): Promise<AppendResult[]> {
    if (this.closed) return Promise.reject(new Error('the event store is closed'));
    return new Promise((resolve, reject) => {
      this.waiting.push({ group, resolve, reject });
      this.schedule();
    });
  }

  /** Takes no more appends and waits until the ones already taken are settled. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.scheduled || this.writing) {
      await (this.writing ?? new Promise((resolve) => setImmediate(resolve)));
    }
  }

  // One batch at a time: while one is written, the next one collects.
  private schedule(): void {
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.writing = this.flush();
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting.splice(0, this.maxBatch);
    try {
      const outcomes = await this.write(batch.map((w) => w.group));
      batch.forEach((w, i) => {
        const outcome = outcomes[i];
        if (outcome instanceof ConcurrencyError) w.reject(outcome);
        else w.resolve(outcome);
      });
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
    this.writing = undefined;
    if (this.waiting.length > 0) this.schedule();
  }
}
