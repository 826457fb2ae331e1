/**
 * Read models: the query side of the order book. A projection folds the event log into one JSON document
 * per key with a pure `apply(doc, event)`; the runner (runner.ts) feeds it the log in position order and
 * a ReadModelStore (SQLite or PostgreSQL) keeps the documents, a few indexed columns taken from them, and
 * the projection's checkpoint, all written in one transaction per batch of events.
 */
import type { StoredEvent } from '../eventstore/types.js';

export type ColumnValue = string | number | boolean | null;

export interface Column<Doc> {
  type: 'text' | 'integer' | 'boolean';
  of(doc: Doc): ColumnValue;
}

export interface Projection<Doc = unknown> {
  /** The read model's name; its table is rm_<name>. */
  name: string;
  /** Bump when `apply` or the document shape changes: the read model is then rebuilt from position 0. */
  version: number;
  /** Keys of the documents an event changes; none when the event does not concern this read model. */
  keysOf(event: StoredEvent): string[];
  /** Pure: the document after the event (`undefined` removes it). Must not mutate `doc`. */
  apply(doc: Doc | undefined, event: StoredEvent, key: string): Doc | undefined;
  /** Columns kept beside each document so that queries can filter and sort on them. */
  columns: Record<string, Column<Doc>>;
}

export interface Condition {
  column: string;
  op: '=' | '>' | '>=' | '<' | '<=';
  value: string | number | boolean;
}

export interface Query {
  where?: Condition[];
  orderBy?: { column: string; desc?: boolean }[];
  limit?: number;
  offset?: number;
}

/** A document with the global position of the last event that changed it. */
export interface Row<Doc> {
  key: string;
  doc: Doc;
  position: number;
}

/** Reads events of the global log after a position (the event store's readAll, bounded). */
export type EventSource = (after: number) => Promise<StoredEvent[]>;

export interface StepResult {
  /** The projection's checkpoint after the step. */
  checkpoint: number;
  /** Events read in this step (0: the projection was already at the head of `source`). */
  events: number;
}

export interface ReadModelStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Creates the projection's table, or drops and recreates it when its version changed. */
  prepare(projection: Projection<any>): Promise<void>;
  /**
   * One atomic step: takes the projection's checkpoint (exclusively, so that several processes sharing a
   * database never apply the same events twice), reads the next events from `source`, applies them, and
   * writes the changed documents and the new checkpoint in one transaction.
   */
  step(projection: Projection<any>, source: EventSource): Promise<StepResult>;
  checkpoint(name: string): Promise<number>;
  get<Doc>(name: string, key: string): Promise<Row<Doc> | undefined>;
  find<Doc>(name: string, query: Query): Promise<Row<Doc>[]>;
  /**
   * Every document in key order (bytewise) with the checkpoint they were read at, from one consistent
   * snapshot: what digests are computed from.
   */
  snapshot(name: string, visit: (key: string, docJson: string) => void): Promise<number>;
  close(): Promise<void>;
}
