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

/** One stream's part of an append to several streams (EventStore.appendStreams). */
export interface StreamAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedVersion;
}

/** A stream folded from its events (EventStore.aggregateStream). */
export interface AggregatedStream<State> {
  state: State;
  /** The stream's version: the number of its events, 0 when it has none; the expected version of the next append. */
  version: number;
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

/** Where a read by stream stopped: the last event read, by its stream and version. */
export interface StreamCursor {
  streamId: string;
  version: number;
}

/**
 * A read of whole streams, as a replay makes: the streams with ids from `after.streamId` (its events after
 * `after.version`) up to but not including `before` (no end when absent), and of those only the events at
 * positions up to `upTo`. Stream ids are compared in the store's own order, the one streamBoundaries uses.
 */
export interface StreamRead {
  after: StreamCursor;
  before?: string;
  upTo: number;
  limit: number;
}

export interface EventStore {
  /**
   * Appends `events` to one stream atomically if it is at `expected`. The promise settles after the events
   * are durable (committed and synced): an acknowledged append survives a kill -9.
   */
  append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult>;
  /**
   * Appends to several streams in one transaction, all or nothing: if any stream is not at its expected
   * version, nothing is written and the promise rejects with that stream's ConcurrencyError. One result per
   * part, in order; the parts' events take consecutive positions in the order given. A stream may appear
   * only once. Durable when settled, as append.
   */
  appendStreams(appends: StreamAppend[]): Promise<AppendResult[]>;
  /**
   * Folds one stream, oldest event first, with `evolve` from `initial`, and gives the state with the
   * stream's version (the expected version under which a decision on that state is appended).
   */
  aggregateStream<State>(streamId: string, evolve: (state: State, event: StoredEvent) => State, initial: State): Promise<AggregatedStream<State>>;
  /** Every event of one stream, oldest first. */
  readStream(streamId: string): Promise<StoredEvent[]>;
  /** Up to `limit` events of the global log with position > `after`, in position order. */
  readAll(after: number, limit: number): Promise<StoredEvent[]>;
  /**
   * Up to `read.limit` events stream by stream, each stream's oldest first (see StreamRead): a replay folds
   * each stream whole, then forgets it, and its workers read disjoint ranges of streams.
   */
  readStreams(read: StreamRead): Promise<StoredEvent[]>;
  /**
   * Stream ids, ascending in the store's order, that cut the log's streams into `count` ranges holding about
   * as many events each (fewer ids when there are fewer streams than ranges).
   */
  streamBoundaries(count: number): Promise<string[]>;
  /** Position of the newest event (0 when the log is empty). */
  head(): Promise<number>;
  /**
   * Calls `listener` with the new head position whenever events are appended, by this process or (for a
   * shared database) by another one. Returns a function that ends the subscription.
   */
  subscribe(listener: (head: number) => void): () => void;
  close(): Promise<void>;
}
