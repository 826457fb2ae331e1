/**
 * What the indexer keeps beside the event log: its follower checkpoint (JSON, in the same database as the
 * log) and, on PostgreSQL, its leadership: one session-level advisory lock, so that exactly one instance
 * indexes and another takes over when that session ends (the process died or lost its connection).
 */
import type { Database } from 'better-sqlite3';
import type { Pool, PoolClient } from 'pg';
import type { OpenedEventStore } from '../store/index.js';
import type { FollowerCheckpoint } from './reorg.js';

export interface IndexerState {
  load(name: string): Promise<FollowerCheckpoint | undefined>;
  save(name: string, checkpoint: FollowerCheckpoint): Promise<void>;
  /** Resolves when this process leads; `lost` is called if it stops leading later. */
  lead(name: string, lost: () => void): Promise<void>;
  /** Gives leadership up (on shutdown). */
  release(): Promise<void>;
}

class SqliteIndexerState implements IndexerState {
  constructor(private readonly db: Database) {
    db.exec('CREATE TABLE IF NOT EXISTS indexer_checkpoints (name TEXT PRIMARY KEY, checkpoint TEXT NOT NULL)');
  }

  async load(name: string): Promise<FollowerCheckpoint | undefined> {
    const row = this.db.prepare('SELECT checkpoint FROM indexer_checkpoints WHERE name = ?').get(name) as
      | { checkpoint: string }
      | undefined;
    return row && (JSON.parse(row.checkpoint) as FollowerCheckpoint);
  }

  async save(name: string, checkpoint: FollowerCheckpoint): Promise<void> {
    this.db
      .prepare('INSERT INTO indexer_checkpoints (name, checkpoint) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET checkpoint = excluded.checkpoint')
      .run(name, JSON.stringify(checkpoint));
  }

  /** The embedded store belongs to one process: it always leads. */
  async lead(): Promise<void> {}

  async release(): Promise<void> {}
}

const RETRY_LEAD_MS = 2_000;

class PostgresIndexerState implements IndexerState {
  private client: PoolClient | undefined;
  private stopped = false;
  private table: Promise<void> | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
  ) {}

  /** Creates the checkpoint table once; a failed attempt is made again by the next caller. */
  private ready(): Promise<void> {
    this.table ??= this.pool
      .query(`CREATE TABLE IF NOT EXISTS "${this.schema}".indexer_checkpoints (name text PRIMARY KEY, checkpoint jsonb NOT NULL)`)
      .then(
        () => undefined,
        (err: Error) => {
          this.table = undefined;
          throw err;
        },
      );
    return this.table;
  }

  async load(name: string): Promise<FollowerCheckpoint | undefined> {
    await this.ready();
    const res = await this.pool.query<{ checkpoint: FollowerCheckpoint }>(
      `SELECT checkpoint FROM "${this.schema}".indexer_checkpoints WHERE name = $1`,
      [name],
    );
    return res.rows[0]?.checkpoint;
  }

  async save(name: string, checkpoint: FollowerCheckpoint): Promise<void> {
    await this.ready();
    await this.pool.query(
      `INSERT INTO "${this.schema}".indexer_checkpoints (name, checkpoint) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET checkpoint = excluded.checkpoint`,
      [name, JSON.stringify(checkpoint)],
    );
  }

  /** Tries for the lock every RETRY_LEAD_MS, through database outages too, until it has it or is released. */
  async lead(name: string, lost: () => void): Promise<void> {
    const key = `${this.schema}:indexer:${name}`;
    while (!this.stopped) {
      let client: PoolClient | undefined;
      let ok = false;
      let failed = false;
      try {
        await this.ready();
        client = await this.pool.connect();
        ok = (await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [key])).rows[0].ok;
      } catch {
        failed = true;
      }
      if (ok && client && this.stopped) {
        client.release(true); // released while the lock was being taken: end the session, freeing it
        return;
      }
      if (ok && client) {
        this.client = client;
        // The lock lives as long as this session: if it breaks, someone else may lead now.
        client.once('error', () => {
          if (this.client !== client) return;
          this.client = undefined;
          client.release(true);
          lost();
        });
        return;
      }
      client?.release(failed); // a session that failed is not given back to the pool
      await new Promise((resolve) => setTimeout(resolve, RETRY_LEAD_MS));
    }
  }

  async release(): Promise<void> {
    this.stopped = true;
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    // Ending the session frees its advisory locks.
    client.release(true);
  }
}

export function indexerStateFor(events: OpenedEventStore): IndexerState {
  return events.kind === 'sqlite' ? new SqliteIndexerState(events.db) : new PostgresIndexerState(events.pool, events.schema);
}
