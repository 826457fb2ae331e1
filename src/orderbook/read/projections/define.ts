/**
 * Projections typed by the events they take (Emmett's ProjectionDefinition): a definition names its event
 * types, and its `keyOf` and `evolve` receive those events parsed and typed, never others. The stores see
 * the untyped Projection of models/types.ts that `defineProjection` makes of it.
 */
import type { StoredEvent } from '../../store/types.js';
import type { Column, Projection } from '../models/types.js';
import { parseOrderEvent, type OrderEvent } from '../../write/events.js';

export type EventOfType<T extends OrderEvent['type']> = Extract<OrderEvent, { type: T }>;

export interface ProjectionDefinition<Doc, T extends OrderEvent['type']> {
  name: string;
  /** Bump when `evolve` or the document shape changes: the read model is then rebuilt from position 0. */
  version: number;
  /** The event types this read model takes; the others pass it by. */
  handles: readonly T[];
  /** The keys of the documents the event changes (none: it does not concern this read model). */
  keysOf(event: EventOfType<T>): string[];
  /** Pure: the document after the event (`undefined` removes it). Must not mutate `doc`. */
  evolve(doc: Doc | undefined, event: EventOfType<T>): Doc | undefined;
  columns: Record<string, Column<Doc>>;
  /** A view follows this read model by position (the rows changed since its cursor). */
  followed?: boolean;
}

export function defineProjection<Doc, T extends OrderEvent['type']>(definition: ProjectionDefinition<Doc, T>): Projection<Doc> {
  const handled = new Set<string>(definition.handles);
  const typed = (event: StoredEvent) => parseOrderEvent(event) as EventOfType<T>;
  return {
    name: definition.name,
    version: definition.version,
    columns: definition.columns,
    followed: definition.followed,
    keysOf: (event) => (handled.has(event.type) ? definition.keysOf(typed(event)) : []),
    apply: (doc, event) => definition.evolve(doc, typed(event)),
  };
}
