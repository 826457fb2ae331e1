/**
 * Read models in SQLite, on the event store's own connection. A step's writes (every projection's) run in
 * one synchronous transaction: nothing else can interleave with it in this process, and the projections of the embedded
 * store are driven by this process only.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Projection, Query, ReadModelStore, Row, EventSource, StepResult } from './types.js';
import type { StoredEvent } from '../../store/types.js';
import {
  applyBatch,
  checkedName,
  columnValues,
  eventsAfter,
  indexesOf,
  staleIndexes,
  keysOfBatch,
  type Change,
  type Fold,
} from './fold.js';
import { whereClause } from './sql.js';

const SQL_TYPE = { text: 'TEXT', integer: 'INTEGER', boolean: 'INTEGER' } as const;

function sqliteValue(value: string | number | boolean | null): string | number | null {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

interface Prepared {
  projection: Projection<any>;
  load: Statement;
  upsert: Statement;
  remove: Statement;
  get: Statement;
}

export class SqliteReadModelStore implements ReadModelStore {
  readonly kind = 'sqlite' as const;
  private readonly prepared = new Map<string, Prepared>();

  private readonly getCheckpoint: Statement;
  private readonly setCheckpoint: Statement;

  constructor(private readonly db: Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS rm_checkpoints (
      name TEXT PRIMARY KEY, version INTEGER NOT NULL, position INTEGER NOT NULL)`);
    this.getCheckpoint = db.prepare('SELECT position FROM rm_checkpoints WHERE name = ?');
    this.setCheckpoint = db.prepare('UPDATE rm_checkpoints SET position = ? WHERE name = ?');
  }

  async prepare(projection: Projection<any>): Promise<void> {
    const table = `rm_${checkedName(projection.name)}`;
    const columns = Object.entries(projection.columns).map(([name, c]) => `${checkedName(name)} ${SQL_TYPE[c.type]}`);
    const current = this.db.prepare('SELECT version FROM rm_checkpoints WHERE name = ?').get(projection.name) as
      | { version: number }
      | undefined;
    this.db.transaction(() => {
      if (current && current.version !== projection.version) this.db.exec(`DROP TABLE IF EXISTS ${table}`);
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${table} (
        id TEXT PRIMARY KEY, doc TEXT NOT NULL, position INTEGER NOT NULL${columns.map((c) => ', ' + c).join('')})`);
      // position: views that follow a read model ask for what changed since their cursor.
      for (const name of staleIndexes(projection)) this.db.exec(`DROP INDEX IF EXISTS ${table}_${name}`);
      for (const { name, columns } of indexesOf(projection)) {
        this.db.exec(`CREATE INDEX IF NOT EXISTS ${table}_${name} ON ${table} (${columns.join(', ')})`);
      }
      this.db
        .prepare(`INSERT INTO rm_checkpoints (name, version, position) VALUES (?, ?, 0)
          ON CONFLICT (name) DO UPDATE SET version = excluded.version,
            position = CASE WHEN rm_checkpoints.version = excluded.version THEN rm_checkpoints.position ELSE 0 END`)
        .run(projection.name, projection.version);
    })();

    const names = Object.keys(projection.columns);
    const placeholders = ['?', '?', '?', ...names.map(() => '?')].join(', ');
    this.prepared.set(projection.name, {
      projection,
      load: this.db.prepare(`SELECT id, doc FROM ${table} WHERE id IN (SELECT value FROM json_each(?))`),
      upsert: this.db.prepare(
        `INSERT INTO ${table} (id, doc, position${names.map((n) => ', ' + n).join('')}) VALUES (${placeholders})
         ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, position = excluded.position${names
           .map((n) => `, ${n} = excluded.${n}`)
           .join('')}`,
      ),
      remove: this.db.prepare(`DELETE FROM ${table} WHERE id = ?`),
      get: this.db.prepare(`SELECT id, doc, position FROM ${table} WHERE id = ?`),
    });
  }

  async checkpoint(name: string): Promise<number> {
    return this.currentCheckpoint(name);
  }

  private currentCheckpoint(name: string): number {
    return (this.getCheckpoint.get(name) as { position: number } | undefined)?.position ?? 0;
  }

  async step(projections: Projection<any>[], source: EventSource): Promise<StepResult> {
    const prepared = projections.map((projection) => this.require(projection.name));
    const checkpoints: Record<string, number> = {};
    for (const { projection } of prepared) checkpoints[projection.name] = this.currentCheckpoint(projection.name);
    const events = await source(Math.min(...Object.values(checkpoints)));
    if (events.length === 0) return { checkpoints, events: 0 };
    const last = events[events.length - 1].position;
    this.withoutSync(
      this.db.transaction(() => {
        for (const p of prepared) {
          const name = p.projection.name;
          const from = checkpoints[name];
          const mine = eventsAfter(events, from);
          if (mine.length === 0) continue;
          this.write(p, { projection: p.projection, changes: this.fold(p, mine) });
          this.setCheckpoint.run(last, name);
          checkpoints[name] = last;
        }
      }),
    );
    return { checkpoints, events: events.length };
  }

  /**
   * Runs a read-model transaction without waiting for the disk (synchronous = NORMAL), whatever the
   * connection's setting for events. A read model is rebuilt from the log, so a power loss that takes its
   * last commits away only makes it catch up again, and in WAL mode it cannot leave it half-written; the
   * event store's own commits are still synced (store/sqlite.ts syncLog). Nothing interleaves: better-sqlite3
   * is synchronous.
   */
  private withoutSync(work: () => void): void {
    const setting = this.db.pragma('synchronous', { simple: true }) as number;
    if (setting <= 1) return work();
    this.db.pragma('synchronous = NORMAL');
    try {
      work();
    } finally {
      this.db.pragma(`synchronous = ${setting}`);
    }
  }

  /** Loads the documents `events` touch and applies the events to them (inside a transaction). */
  private fold({ projection, load }: Prepared, events: StoredEvent[]): Map<string, Change<unknown>> {
    const keys = keysOfBatch(projection, events);
    const docs = new Map<string, unknown>();
    if (keys.length > 0) {
      for (const row of load.all(JSON.stringify(keys)) as { id: string; doc: string }[]) docs.set(row.id, JSON.parse(row.doc));
    }
    return applyBatch(projection, events, docs);
  }

  private write({ projection, upsert, remove }: Prepared, fold: Fold): void {
    for (const [key, change] of fold.changes) {
      if (change.doc === undefined) remove.run(key);
      else upsert.run(key, JSON.stringify(change.doc), change.position, ...columnValues(projection, change.doc).map(sqliteValue));
    }
  }

  async get<Doc>(name: string, key: string): Promise<Row<Doc> | undefined> {
    const row = this.require(name).get.get(key) as RawRow | undefined;
    return row && toRow<Doc>(row);
  }

  async find<Doc>(name: string, query: Query): Promise<Row<Doc>[]> {
    const { projection } = this.require(name);
    const { sql, params } = whereClause(projection, query, () => '?');
    const rows = this.db.prepare(`SELECT id, doc, position FROM rm_${name}${sql}`).all(...params.map(sqliteValue));
    return (rows as RawRow[]).map((r) => toRow<Doc>(r));
  }

  async snapshot(name: string, visit: (key: string, doc: unknown) => void): Promise<number> {
    this.require(name);
    return snapshotSqlite(this.db, name, visit);
  }

  async close(): Promise<void> {
    // The connection belongs to the event store, which closes it.
  }

  private require(name: string): Prepared {
    const p = this.prepared.get(name);
    if (!p) throw new Error(`read model ${name} was not prepared`);
    return p;
  }
}

/**
 * Every document of read model `name` in key order, and the checkpoint, in one read transaction of `db`:
 * ReadModelStore.snapshot, and what a digest worker runs on a read-only connection of its own.
 */
export function snapshotSqlite(db: Database, name: string, visit: (key: string, doc: unknown) => void): number {
  checkedName(name);
  return db.transaction(() => {
    const position = (db.prepare('SELECT position FROM rm_checkpoints WHERE name = ?').get(name) as { position: number } | undefined)?.position ?? 0;
    for (const row of db.prepare(`SELECT id, doc FROM rm_${name} ORDER BY id`).iterate() as Iterable<RawRow>) {
      visit(row.id, JSON.parse(row.doc));
    }
    return position;
  })();
}

/**
 * The checkpoint of read model `name` if no document changed since a digest taken at `since` (no row
 * written after its position, as many rows: a delete alone lowers the count, any write moves a row's
 * position), else null; one read transaction. What lets a digest be kept while only the checkpoint moved.
 */
export function unchangedSqlite(db: Database, name: string, since: { position: number; documents: number }): number | null {
  checkedName(name);
  return db.transaction(() => {
    const position = (db.prepare('SELECT position FROM rm_checkpoints WHERE name = ?').get(name) as { position: number } | undefined)?.position ?? 0;
    if (position < since.position) return null;
    const moved = db.prepare(`SELECT 1 FROM rm_${name} WHERE position > ? LIMIT 1`).get(since.position);
    const count = (db.prepare(`SELECT count(*) AS n FROM rm_${name}`).get() as { n: number }).n;
    return !moved && count === since.documents ? position : null;
  })();
}

interface RawRow {
  id: string;
  doc: string;
  position: number;
}

function toRow<Doc>(row: RawRow): Row<Doc> {
  return { key: row.id, doc: JSON.parse(row.doc) as Doc, position: Number(row.position) };
}
