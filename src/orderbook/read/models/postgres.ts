/**
 * Read models in PostgreSQL, shared by every instance of the service. A step locks the projections'
 * checkpoint rows (SELECT ... FOR UPDATE) for the length of its transaction, so instances take turns and no
 * event is applied twice; whichever instance gets there first brings the read model up to date for all.
 */
import type { Pool, PoolClient, QueryResult } from 'pg';
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

// uint32 values such as validTo do not fit PostgreSQL's integer: integer columns are bigint.
const SQL_TYPE = { text: 'text', integer: 'bigint', boolean: 'boolean' } as const;

export class PostgresReadModelStore implements ReadModelStore {
  readonly kind = 'postgres' as const;
  private readonly projections = new Map<string, Projection<any>>();
  private ready: Promise<void>;

  constructor(
    private readonly pool: Pool,
    private readonly schema = 'public',
  ) {
    // Concurrent CREATE TABLE IF NOT EXISTS can still collide in PostgreSQL: take turns.
    this.ready = this.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${schema}.rm_checkpoints`]);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.t('rm_checkpoints')} (
        name text PRIMARY KEY, version integer NOT NULL, position bigint NOT NULL)`);
    });
  }

  /** Schema-qualified, quoted table name. */
  private t(table: string): string {
    return `"${this.schema}".${table}`;
  }

  async prepare(projection: Projection<any>): Promise<void> {
    await this.ready;
    const name = checkedName(projection.name);
    const table = this.t(`rm_${name}`);
    const columns = Object.entries(projection.columns).map(([c, def]) => `${checkedName(c)} ${SQL_TYPE[def.type]}`);
    await this.transaction(async (client) => {
      // Instances starting together must not both drop and recreate the table.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.schema}.rm_${name}`]);
      const current = await client.query<{ version: number }>(
        `SELECT version FROM ${this.t('rm_checkpoints')} WHERE name = $1`,
        [name],
      );
      if (current.rows[0] && current.rows[0].version !== projection.version) await client.query(`DROP TABLE IF EXISTS ${table}`);
      // COLLATE "C": keys sort bytewise, as in SQLite, so both give the same digests.
      await client.query(`CREATE TABLE IF NOT EXISTS ${table} (
        id text COLLATE "C" PRIMARY KEY, doc text NOT NULL, position bigint NOT NULL${columns.map((c) => ', ' + c).join('')})`);
      // position: views that follow a read model ask for what changed since their cursor.
      for (const index of staleIndexes(projection)) await client.query(`DROP INDEX IF EXISTS "${this.schema}".rm_${name}_${index}`);
      for (const index of indexesOf(projection)) {
        await client.query(`CREATE INDEX IF NOT EXISTS rm_${name}_${index.name} ON ${table} (${index.columns.join(', ')})`);
      }
      await client.query(
        `INSERT INTO ${this.t('rm_checkpoints')} (name, version, position) VALUES ($1, $2, 0)
         ON CONFLICT (name) DO UPDATE SET version = excluded.version,
           position = CASE WHEN rm_checkpoints.version = excluded.version THEN rm_checkpoints.position ELSE 0 END`,
        [name, projection.version],
      );
    });
    this.projections.set(name, projection);
  }

  async checkpoint(name: string): Promise<number> {
    await this.ready;
    const res = await this.pool.query<{ position: string }>(
      `SELECT position FROM ${this.t('rm_checkpoints')} WHERE name = $1`,
      [name],
    );
    return Number(res.rows[0]?.position ?? 0);
  }

  async step(projections: Projection<any>[], source: EventSource): Promise<StepResult> {
    for (const projection of projections) this.require(projection.name);
    // Checked names (prepare), written into the SQL below as literals.
    const names = projections.map((p) => p.name);
    const list = (chosen: string[]) => chosen.map((name) => `'${name}'`).join(', ');
    const client = await this.pool.connect();
    try {
      // A read model is rebuilt from the log, so its commit need not wait for the WAL flush
      // (synchronous_commit off for this transaction only): a crash can take back only whole steps, with
      // their checkpoints, and the next pass repeats them; the events it read were already durable. The
      // statements without parameters share one message with BEGIN, and the checkpoint's update one with
      // COMMIT: each round trip waits for a turn of a busy event loop. The rows are always locked in name
      // order, so that instances stepping different sets cannot deadlock.
      const [, , locked] = (await client.query(
        `BEGIN; SET LOCAL synchronous_commit = off;
         SELECT name, position FROM ${this.t('rm_checkpoints')} WHERE name IN (${list(names)}) ORDER BY name FOR UPDATE`,
      )) as unknown as QueryResult<{ name: string; position: string }>[];
      const checkpoints: Record<string, number> = {};
      for (const row of locked.rows) checkpoints[row.name] = Number(row.position);
      const events = await source(Math.min(...names.map((name) => checkpoints[name])));
      if (events.length === 0) {
        await client.query('COMMIT');
        return { checkpoints, events: 0 };
      }
      const last = events[events.length - 1].position;
      const moved: string[] = [];
      for (const projection of projections) {
        const from = checkpoints[projection.name];
        const mine = eventsAfter(events, from);
        if (mine.length === 0) continue;
        await this.write(client, projection, { projection, changes: await this.fold(client, projection, mine) });
        checkpoints[projection.name] = last;
        moved.push(projection.name);
      }
      await client.query(
        moved.length > 0 ? `UPDATE ${this.t('rm_checkpoints')} SET position = ${last} WHERE name IN (${list(moved)}); COMMIT` : 'COMMIT',
      );
      return { checkpoints, events: events.length };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /** Loads the documents `events` touch and applies the events to them (inside a transaction). */
  private async fold(client: PoolClient, projection: Projection<any>, events: StoredEvent[]): Promise<Map<string, Change<unknown>>> {
    const keys = keysOfBatch(projection, events);
    const docs = new Map<string, unknown>();
    if (keys.length > 0) {
      const table = this.t(`rm_${projection.name}`);
      const loaded = await client.query<{ id: string; doc: string }>(`SELECT id, doc FROM ${table} WHERE id = ANY($1)`, [keys]);
      for (const row of loaded.rows) docs.set(row.id, JSON.parse(row.doc));
    }
    return applyBatch(projection, events, docs);
  }

  /** Upserts and deletes a step's changes in two statements, whatever their number. */
  private async write(client: PoolClient, projection: Projection<any>, fold: Fold): Promise<void> {
    const table = this.t(`rm_${projection.name}`);
    const names = Object.keys(projection.columns);
    const removed: string[] = [];
    const ids: string[] = [];
    const docs: string[] = [];
    const positions: number[] = [];
    const columns: (string | number | boolean | null)[][] = names.map(() => []);
    for (const [key, change] of fold.changes) {
      if (change.doc === undefined) {
        removed.push(key);
        continue;
      }
      ids.push(key);
      docs.push(JSON.stringify(change.doc));
      positions.push(change.position);
      columnValues(projection, change.doc).forEach((v, i) => columns[i].push(v));
    }
    if (removed.length > 0) await client.query(`DELETE FROM ${table} WHERE id = ANY($1)`, [removed]);
    if (ids.length === 0) return;
    const types = names.map((n) => SQL_TYPE[projection.columns[n].type]);
    const unnest = ['$1::text[]', '$2::text[]', '$3::bigint[]', ...types.map((t, i) => `$${i + 4}::${t}[]`)].join(', ');
    await client.query(
      `INSERT INTO ${table} (id, doc, position${names.map((n) => ', ' + n).join('')})
       SELECT * FROM unnest(${unnest})
       ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, position = excluded.position${names
         .map((n) => `, ${n} = excluded.${n}`)
         .join('')}`,
      [ids, docs, positions, ...columns],
    );
  }

  async get<Doc>(name: string, key: string): Promise<Row<Doc> | undefined> {
    this.require(name);
    const res = await this.pool.query<RawRow>(`SELECT id, doc, position FROM ${this.t(`rm_${name}`)} WHERE id = $1`, [key]);
    return res.rows[0] && toRow<Doc>(res.rows[0]);
  }

  async find<Doc>(name: string, query: Query): Promise<Row<Doc>[]> {
    const projection = this.require(name);
    const { sql, params } = whereClause(projection, query, (i) => `$${i}`);
    const res = await this.pool.query<RawRow>(`SELECT id, doc, position FROM ${this.t(`rm_${name}`)}${sql}`, params);
    return res.rows.map((r) => toRow<Doc>(r));
  }

  async snapshot(name: string, visit: (key: string, doc: unknown) => void): Promise<number> {
    this.require(name);
    return snapshotPostgres(this.pool, this.schema, name, visit);
  }

  async close(): Promise<void> {
    // The pool belongs to the event store, which ends it.
  }

  private async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  private require(name: string): Projection<any> {
    const p = this.projections.get(name);
    if (!p) throw new Error(`read model ${name} was not prepared`);
    return p;
  }
}

/**
 * Every document of read model `name` in key order, and the checkpoint, from one snapshot of `schema`:
 * ReadModelStore.snapshot, and what a digest worker runs on a pool of its own.
 */
export async function snapshotPostgres(
  pool: Pool,
  schema: string,
  name: string,
  visit: (key: string, doc: unknown) => void,
): Promise<number> {
  const table = `"${schema}".rm_${checkedName(name)}`;
  const client = await pool.connect();
  try {
    // One snapshot for the checkpoint and every page of documents.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const cp = await client.query<{ position: string }>(`SELECT position FROM "${schema}".rm_checkpoints WHERE name = $1`, [name]);
    let last = '';
    for (;;) {
      const page = await client.query<RawRow>(`SELECT id, doc FROM ${table} WHERE id > $1 ORDER BY id LIMIT 5000`, [last]);
      for (const row of page.rows) visit(row.id, JSON.parse(row.doc));
      if (page.rows.length < 5000) break;
      last = page.rows[page.rows.length - 1].id;
    }
    await client.query('COMMIT');
    return Number(cp.rows[0]?.position ?? 0);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** unchangedSqlite's question in PostgreSQL, in one snapshot. */
export async function unchangedPostgres(
  pool: Pool,
  schema: string,
  name: string,
  since: { position: number; documents: number },
): Promise<number | null> {
  const table = `"${schema}".rm_${checkedName(name)}`;
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const cp = await client.query<{ position: string }>(`SELECT position FROM "${schema}".rm_checkpoints WHERE name = $1`, [name]);
    const moved = await client.query(`SELECT 1 FROM ${table} WHERE position > $1 LIMIT 1`, [since.position]);
    const count = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
    await client.query('COMMIT');
    const position = Number(cp.rows[0]?.position ?? 0);
    return position >= since.position && moved.rows.length === 0 && Number(count.rows[0].n) === since.documents ? position : null;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

interface RawRow {
  id: string;
  doc: string;
  position: string | number;
}

function toRow<Doc>(row: RawRow): Row<Doc> {
  return { key: row.id, doc: JSON.parse(row.doc) as Doc, position: Number(row.position) };
}
