/**
 * Read models: the query side of the order book. A projection folds the event log into one JSON document
 * per key with a pure `apply(doc, event)`; the runner (runner.ts) feeds it the log in position order and
 * a ReadModelStore (SQLite or PostgreSQL) keeps the documents, a few indexed columns taken from them, and
 * the projection's checkpoint, all written in one transaction per batch of events.
 */
import type { StoredEvent } from '../../store/types.js';

export type ColumnValue = string | number | boolean | null;

export interface Column<Doc> {
  type: 'text' | 'integer' | 'boolean';
  of(doc: Doc): ColumnValue;
  /**
   * Whether the column gets an index (default true). Every index is written at every change of a
   * document, so a column that no query narrows or sorts by well (a flag most rows share) goes without.
   */
  indexed?: boolean;
  /**
   * Columns (or `id`) the index goes on to after this one: a query that narrows by this column and sorts by
   * those reads its rows in order along the index and stops at its limit, where a one-column index would
   * have every matching row sorted first.
   */
  indexWith?: string[];
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
  /** A view follows this read model by position (the rows changed since its cursor): index the position. */
  followed?: boolean;
}

export interface Condition {
  column: string;
  op: '=' | '>' | '>=' | '<' | '<=';
  value: string | number | boolean;
}

export interface Query {
  where?: Condition[];
  orderBy?: { column: string; desc?: boolean }[];
  /**
   * A keyset cursor: only rows after these values of the orderBy columns (all ascending), compared as a
   * tuple, so that the next page costs an index seek however deep it is.
   */
  after?: (string | number)[];
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
  /** Each projection's checkpoint after the step, by name. */
  checkpoints: Record<string, number>;
  /** Events read in this step (0: every projection was already at the head of `source`). */
  events: number;
}

export interface ReadModelStore {
  readonly kind: 'sqlite' | 'postgres' | 'memory';
  /** Creates the projection's table, or drops and recreates it when its version changed. */
  prepare(projection: Projection<any>): Promise<void>;
  /**
   * One atomic step for several projections: takes their checkpoints (exclusively, so that several
   * processes sharing a database never apply the same events twice), reads the next events once from
   * `source` (after the lowest checkpoint), applies to each projection the events past its own checkpoint,
   * and writes the changed documents and the new checkpoints in one transaction. The read models thus
   * move together: a reader never sees one ahead of another that was at the same checkpoint.
   */
  step(projections: Projection<any>[], source: EventSource): Promise<StepResult>;
  checkpoint(name: string): Promise<number>;
  get<Doc>(name: string, key: string): Promise<Row<Doc> | undefined>;
  find<Doc>(name: string, query: Query): Promise<Row<Doc>[]>;
  /**
   * Every document in key order (bytewise) with the checkpoint they were read at, from one consistent
   * snapshot: what digests are computed from.
   */
  snapshot(name: string, visit: (key: string, doc: unknown) => void): Promise<number>;
  close(): Promise<void>;
}
