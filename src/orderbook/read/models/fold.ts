/**
 * The engine-independent part of a projection step: which documents a batch of events touches, and what
 * they become. Pure; the stores load the documents before and write the changes after.
 */
import type { StoredEvent } from '../../store/types.js';
import type { Projection } from './types.js';

export interface Change<Doc> {
  /** `undefined`: the document is removed. */
  doc: Doc | undefined;
  position: number;
}

/** The events of a step that a projection at `checkpoint` has not applied yet (they come in position order). */
export function eventsAfter(events: StoredEvent[], checkpoint: number): StoredEvent[] {
  if (events.length === 0 || events[0].position > checkpoint) return events;
  return events.filter((e) => e.position > checkpoint);
}

export function keysOfBatch(projection: Projection<any>, events: StoredEvent[]): string[] {
  const keys = new Set<string>();
  for (const event of events) for (const key of projection.keysOf(event)) keys.add(key);
  return [...keys];
}

/** Applies `events` in order to `docs` (the loaded documents; a missing key is an absent document). */
export function applyBatch<Doc>(
  projection: Projection<Doc>,
  events: StoredEvent[],
  docs: Map<string, Doc>,
): Map<string, Change<Doc>> {
  const changes = new Map<string, Change<Doc>>();
  for (const event of events) {
    for (const key of projection.keysOf(event)) {
      const doc = projection.apply(docs.get(key), event, key);
      if (doc === undefined) docs.delete(key);
      else docs.set(key, doc);
      changes.set(key, { doc, position: event.position });
    }
  }
  return changes;
}

/** A step's changes to one projection's documents. */
export interface Fold {
  projection: Projection<any>;
  changes: Map<string, Change<unknown>>;
}


/** The values of a projection's columns for one document, in the order of `projection.columns`. */
export function columnValues<Doc>(projection: Projection<Doc>, doc: Doc): (string | number | boolean | null)[] {
  return Object.values(projection.columns).map((column) => column.of(doc));
}

/** An index of a read model's table: its name (after the table's) and its columns. */
export interface IndexSpec {
  name: string;
  columns: string[];
}

/**
 * The indexes: position when a view follows the read model, and one per column not marked otherwise, on
 * that column and those of its indexWith.
 */
export function indexesOf(projection: Projection<any>): IndexSpec[] {
  const specs = Object.entries(projection.columns)
    .filter(([, c]) => c.indexed !== false)
    .map(([name, c]) => {
      const columns = [name, ...(c.indexWith ?? [])].map(checkedName);
      return { name: columns.join('_'), columns };
    });
  return projection.followed ? [{ name: 'position', columns: ['position'] }, ...specs] : specs;
}

/**
 * Indexes an older definition made that this one does not (a column's one-column index, now unindexed or
 * indexed with more columns): dropped when the read model is prepared, so they cost no more writes.
 */
export function staleIndexes(projection: Projection<any>): string[] {
  const current = new Set(indexesOf(projection).map((i) => i.name));
  return Object.keys(projection.columns).filter((name) => !current.has(name));
}

const NAME = /^[a-z][a-z0-9_]*$/;

/** Table and column names come from code, but a typo should fail loudly rather than reach SQL. */
export function checkedName(name: string): string {
  if (!NAME.test(name)) throw new Error(`read model name "${name}" must match ${NAME}`);
  return name;
}
