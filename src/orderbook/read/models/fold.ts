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

/** The columns to index: position when a view follows the read model, and every column not marked otherwise. */
export function indexedColumns(projection: Projection<any>): string[] {
  const columns = Object.entries(projection.columns).filter(([, c]) => c.indexed !== false).map(([name]) => name);
  return projection.followed ? ['position', ...columns] : columns;
}

const NAME = /^[a-z][a-z0-9_]*$/;

/** Table and column names come from code, but a typo should fail loudly rather than reach SQL. */
export function checkedName(name: string): string {
  if (!NAME.test(name)) throw new Error(`read model name "${name}" must match ${NAME}`);
  return name;
}
