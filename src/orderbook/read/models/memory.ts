/**
 * Read models held in memory: the fresh store a replay rebuilds into (npm run replay). Nothing is
 * persisted or serialised, so a replay costs what reading the log and applying the projections cost.
 */
import type { StoredEvent } from '../../store/types.js';
import type { Condition, EventSource, Projection, Query, ReadModelStore, Row, StepResult } from './types.js';
import { eventsAfter } from './fold.js';

interface Entry {
  doc: unknown;
  position: number;
}

/** The documents of a projection, and the position they reflect. */
interface Documents {
  entries: Map<string, Entry>;
  checkpoint: number;
}

interface Model {
  projection: Projection<any>;
  documents: Documents;
}

function matches(projection: Projection<any>, entry: Entry, key: string, condition: Condition): boolean {
  const value =
    condition.column === 'id' ? key : condition.column === 'position' ? entry.position : projection.columns[condition.column]?.of(entry.doc);
  if (value === undefined) throw new Error(`read model ${projection.name} has no column ${condition.column}`);
  if (value === null) return false;
  switch (condition.op) {
    case '=':
      return value === condition.value;
    case '>':
      return value > condition.value;
    case '>=':
      return value >= condition.value;
    case '<':
      return value < condition.value;
    case '<=':
      return value <= condition.value;
  }
}

export class MemoryReadModelStore implements ReadModelStore {
  readonly kind = 'memory' as const;
  private readonly models = new Map<string, Model>();

  async prepare(projection: Projection<any>): Promise<void> {
    this.models.set(projection.name, { projection, documents: { entries: new Map(), checkpoint: 0 } });
  }

  async step(projections: Projection<any>[], source: EventSource): Promise<StepResult> {
    const models = projections.map((p) => this.require(p.name));
    const checkpoints = Object.fromEntries(models.map((m) => [m.projection.name, m.documents.checkpoint]));
    const events = await source(Math.min(...models.map((m) => m.documents.checkpoint)));
    if (events.length === 0) return { checkpoints, events: 0 };
    const last = events[events.length - 1].position;
    for (const { projection, documents } of models) {
      if (documents.checkpoint < last) {
        this.apply(projection, documents.entries, eventsAfter(events, documents.checkpoint));
        documents.checkpoint = last;
      }
      checkpoints[projection.name] = last;
    }
    return { checkpoints, events: events.length };
  }

  private apply(projection: Projection<any>, docs: Map<string, Entry>, events: StoredEvent[]): void {
    for (const event of events) {
      for (const key of projection.keysOf(event)) {
        const entry = docs.get(key);
        const doc = projection.apply(entry?.doc, event, key);
        if (doc === undefined) docs.delete(key);
        else if (entry) {
          entry.doc = doc;
          entry.position = event.position;
        } else docs.set(key, { doc, position: event.position });
      }
    }
  }

  async checkpoint(name: string): Promise<number> {
    return this.require(name).documents.checkpoint;
  }

  async get<Doc>(name: string, key: string): Promise<Row<Doc> | undefined> {
    const entry = this.require(name).documents.entries.get(key);
    return entry && { key, doc: entry.doc as Doc, position: entry.position };
  }

  async find<Doc>(name: string, query: Query): Promise<Row<Doc>[]> {
    const { projection, documents } = this.require(name);
    let rows = [...documents.entries]
      .filter(([key, entry]) => (query.where ?? []).every((c) => matches(projection, entry, key, c)))
      .map(([key, entry]) => ({ key, doc: entry.doc as Doc, position: entry.position }));
    const sortValue = (row: Row<Doc>, column: string) =>
      column === 'id' ? row.key : column === 'position' ? row.position : projection.columns[column].of(row.doc);
    if (query.after !== undefined) {
      const after = query.after;
      const columns = (query.orderBy ?? []).map((o) => o.column);
      if (columns.length !== after.length || (query.orderBy ?? []).some((o) => o.desc)) {
        throw new Error('a cursor needs one value per orderBy column, all ascending');
      }
      // Tuple comparison as SQL makes it: the first column that differs decides; a null never follows.
      const follows = (row: Row<Doc>) => {
        for (let i = 0; i < columns.length; i++) {
          const value = sortValue(row, columns[i]);
          if (value === null || value === undefined) return false;
          if (value !== after[i]) return value > after[i];
        }
        return false;
      };
      rows = rows.filter(follows);
    }
    for (const { column, desc } of [...(query.orderBy ?? [])].reverse()) {
      rows = rows.sort((a, b) => {
        const x = sortValue(a, column);
        const y = sortValue(b, column);
        const order = x === y ? 0 : x === null ? -1 : y === null ? 1 : x < y ? -1 : 1;
        return desc ? -order : order;
      });
    }
    const offset = query.offset ?? 0;
    return rows.slice(offset, query.limit === undefined ? undefined : offset + query.limit);
  }

  async snapshot(name: string, visit: (key: string, doc: unknown) => void): Promise<number> {
    const { entries, checkpoint } = this.require(name).documents;
    // Keys are ASCII (UIDs, block hashes): code-unit order is the bytewise order the SQL stores use.
    for (const key of [...entries.keys()].sort()) visit(key, entries.get(key)!.doc);
    return checkpoint;
  }

  async close(): Promise<void> {
    this.models.clear();
  }

  private require(name: string): Model {
    const model = this.models.get(name);
    if (!model) throw new Error(`read model ${name} was not prepared`);
    return model;
  }
}
