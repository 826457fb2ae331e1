/**
 * The event store interface: an append-only log of immutable events, partitioned into streams (one per
 * order) with optimistic concurrency on each stream's version, and with one global order (position) that
 * projections and auditors read. SQLite (sqlite.ts) and PostgreSQL (postgres.ts) implement it; another
 * engine can be added behind the same interface.
 */

/** An event as a command decides it, before it is stored. */
export interface NewEvent<Type extends string = string, Data = unknown> {
  type: Type;
  /** Version of the event's data shape, so that old events can still be read after the shape changes. */
  schemaVersion: number;
  data: Data;
}

/** An event as the log holds it. */
export interface StoredEvent<Type extends string = string, Data = unknown> extends NewEvent<Type, Data> {
  /** Place in the global log: 1, 2, 3, ... in commit order, with no gaps a reader could overtake. */
  position: number;
  streamId: string;
  /** Place in its stream: 1, 2, 3, ... */
  streamVersion: number;
  /** ISO 8601 UTC time the store recorded the event. */
  recordedAt: string;
}

/**
 * What the stream must look like for an append to go ahead:
 * a number is the exact current version (0: the stream has no events), 'no_stream' equals 0, and 'any'
 * skips the check.
 */
export type ExpectedVersion = number | 'no_stream' | 'any';

export interface AppendResult {
  /** The stream's version after the append. */
  streamVersion: number;
  /** Global position of the last appended event. */
  position: number;
}

/** The stream was not at the expected version: someone else appended first. Nothing was written. */
export class ConcurrencyError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedVersion,
    readonly actual: number,
  ) {
    super(`stream ${streamId} is at version ${actual}, expected ${expected}`);
  }
}

/**
 * The append itself is malformed (no events, a bad expected version, data that is not JSON or that a store
 * cannot hold). Nothing was written; retrying the same append cannot succeed.
 */
export class InvalidAppendError extends Error {}

/**
 * One of `count` disjoint shares of the log's streams (`index` from 0): every event of a stream falls in the
 * same share, so read models whose documents each depend on one stream can be rebuilt share by share.
 */
export interface StreamPartition {
  index: number;
  count: number;
}

export interface EventStore {
  /**
   * Appends `events` to one stream atomically if it is at `expected`. The promise settles after the events
   * are durable (committed and synced): an acknowledged append survives a kill -9.
   */
  append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult>;
  /** Every event of one stream, oldest first. */
  readStream(streamId: string): Promise<StoredEvent[]>;
  /**
   * Up to `limit` events of the global log with position > `after`, in position order; with a partition,
   * only the events of the streams in that share (a replay reads the shares in parallel).
   */
  readAll(after: number, limit: number, partition?: StreamPartition): Promise<StoredEvent[]>;
  /** Position of the newest event (0 when the log is empty). */
  head(): Promise<number>;
  /**
   * Calls `listener` with the new head position whenever events are appended, by this process or (for a
   * shared database) by another one. Returns a function that ends the subscription.
   */
  subscribe(listener: (head: number) => void): () => void;
  close(): Promise<void>;
}
