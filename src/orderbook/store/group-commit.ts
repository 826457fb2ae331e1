/**
 * Group commit: appends issued close together (in the same turn of the event loop, or while the previous
 * batch is being written) go to the database as one batch, written in one transaction, so that they share
 * one durable commit (one fsync) instead of paying for one each. Each append still gets its own outcome.
 */
import { prepareAppend, prepareGroup, type AppendOutcome, type PreparedGroup } from './append-plan.js';
import type { AppendResult, ExpectedVersion, NewEvent, StreamAppend } from './types.js';
import { TurnBatcher } from '../../shared/turn-batcher.js';

/**
 * Writes a batch in one transaction and returns one outcome per group, in order (a ConcurrencyError for a
 * group whose expected versions did not hold). Throws when the batch
 * as a whole could not be written (then none of it was).
 */
export type BatchWriter = (batch: PreparedGroup[]) => Promise<AppendOutcome[]>;

/**
 * One batch at a time, at most `maxBatch` groups (shared/turn-batcher.ts): while one is written, the next
 * one collects. A ConcurrencyError outcome fails its group alone; a batch that could not be written fails
 * its own groups, and the next batch is written as usual.
 */
export class GroupCommitQueue {
  private readonly batcher: TurnBatcher<PreparedGroup, AppendResult[]>;
  private closed = false;

  /** `maxBatch` bounds one transaction's size (and the statement sizes in it). */
  constructor(write: BatchWriter, maxBatch = 1000) {
    this.batcher = new TurnBatcher<PreparedGroup, AppendResult[]>(write, { maxItems: maxBatch, concurrency: 1 });
  }

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
    return this.batcher.add(group);
  }

  /** Takes no more appends and waits until the ones already taken are settled. */
  async close(): Promise<void> {
    this.closed = true;
    await this.batcher.idle();
  }
}
