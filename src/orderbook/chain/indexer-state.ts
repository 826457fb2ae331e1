/**
 * What the indexer keeps beside the event log, in the same database: its follower checkpoint (JSON), the
 * chain facts it appended that stand (one row per settlement log: what a reorganisation deeper than the
 * follower remembers must reconcile, without reading the read models), and, on PostgreSQL, its
 * leadership: one session-level advisory lock, so that exactly one instance indexes and another takes
 * over when that session ends (the process died or lost its connection).
 */
import type { Database } from 'better-sqlite3';
import type { Pool, PoolClient } from 'pg';
import type { OpenedEventStore } from '../store/index.js';
import type { FollowerCheckpoint } from './reorg.js';

/** A chain fact of an order's stream: the settlement log (blockHash, logIndex) at blockNumber. */
export interface StandingFact {
  uid: string;
  blockNumber: number;
  blockHash: string;
  logIndex: number;
}

export interface IndexerState {
  load(name: string): Promise<FollowerCheckpoint | undefined>;
  save(name: string, checkpoint: FollowerCheckpoint): Promise<void>;
  /**
   * Whether the facts are kept for `name`: false for a database whose indexer ran before they were (its
   * facts are then taken from the log once, see Indexer).
   */
  hasFacts(name: string): Promise<boolean>;
  /** Records facts about to be appended (recorded first: a fact recorded but not appended reverts to nothing). */
  recordFacts(name: string, facts: StandingFact[]): Promise<void>;
  /** Forgets facts once reverted. */
  forgetFacts(name: string, facts: StandingFact[]): Promise<void>;
  standingFacts(name: string): Promise<StandingFact[]>;
  /** Resolves when this process leads; `lost` is called if it stops leading later. */
  lead(name: string, lost: () => void): Promise<void>;
  /** Gives leadership up (on shutdown). */
  release(): Promise<void>;
}

class SqliteIndexerState implements IndexerState {
  constructor(private readonly db: Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS indexer_checkpoints (name TEXT PRIMARY KEY, checkpoint TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS indexer_facts (name TEXT NOT NULL, block_hash TEXT NOT NULL, log_index INTEGER NOT NULL,
        block_number INTEGER NOT NULL, uid TEXT NOT NULL, PRIMARY KEY (name, block_hash, log_index, uid));
      CREATE TABLE IF NOT EXISTS indexer_facts_kept (name TEXT PRIMARY KEY)`);
  }

  async hasFacts(name: string): Promise<boolean> {
    return this.db.prepare('SELECT 1 FROM indexer_facts_kept WHERE name = ?').get(name) !== undefined;
  }

  async recordFacts(name: string, facts: StandingFact[]): Promise<void> {
    const insert = this.db.prepare(
      'INSERT INTO indexer_facts (name, block_hash, log_index, block_number, uid) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
    );
    this.db.transaction(() => {
      this.db.prepare('INSERT INTO indexer_facts_kept (name) VALUES (?) ON CONFLICT DO NOTHING').run(name);
      for (const f of facts) insert.run(name, f.blockHash.toLowerCase(), f.logIndex, f.blockNumber, f.uid);
    })();
  }

  async forgetFacts(name: string, facts: StandingFact[]): Promise<void> {
    const remove = this.db.prepare('DELETE FROM indexer_facts WHERE name = ? AND block_hash = ? AND log_index = ? AND uid = ?');
    this.db.transaction(() => {
      for (const f of facts) remove.run(name, f.blockHash.toLowerCase(), f.logIndex, f.uid);
    })();
  }

  async standingFacts(name: string): Promise<StandingFact[]> {
    return this.db
      .prepare('SELECT uid, block_number AS blockNumber, block_hash AS blockHash, log_index AS logIndex FROM indexer_facts WHERE name = ?')
      .all(name) as StandingFact[];
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
      .query(
        `CREATE TABLE IF NOT EXISTS "${this.schema}".indexer_checkpoints (name text PRIMARY KEY, checkpoint jsonb NOT NULL);
         CREATE TABLE IF NOT EXISTS "${this.schema}".indexer_facts (name text NOT NULL, block_hash text NOT NULL,
           log_index integer NOT NULL, block_number bigint NOT NULL, uid text NOT NULL, PRIMARY KEY (name, block_hash, log_index, uid));
         CREATE TABLE IF NOT EXISTS "${this.schema}".indexer_facts_kept (name text PRIMARY KEY)`,
      )
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

  async hasFacts(name: string): Promise<boolean> {
    await this.ready();
    const res = await this.pool.query(`SELECT 1 FROM "${this.schema}".indexer_facts_kept WHERE name = $1`, [name]);
    return res.rowCount === 1;
  }

  async recordFacts(name: string, facts: StandingFact[]): Promise<void> {
    await this.ready();
    await this.pool.query(
      `WITH kept AS (INSERT INTO "${this.schema}".indexer_facts_kept (name) VALUES ($1) ON CONFLICT DO NOTHING)
       INSERT INTO "${this.schema}".indexer_facts (name, block_hash, log_index, block_number, uid)
       SELECT $1, * FROM unnest($2::text[], $3::integer[], $4::bigint[], $5::text[]) ON CONFLICT DO NOTHING`,
      [name, facts.map((f) => f.blockHash.toLowerCase()), facts.map((f) => f.logIndex), facts.map((f) => f.blockNumber), facts.map((f) => f.uid)],
    );
  }

  async forgetFacts(name: string, facts: StandingFact[]): Promise<void> {
    if (facts.length === 0) return;
    await this.ready();
    await this.pool.query(
      `DELETE FROM "${this.schema}".indexer_facts f USING unnest($2::text[], $3::integer[], $4::text[]) AS r(block_hash, log_index, uid)
       WHERE f.name = $1 AND f.block_hash = r.block_hash AND f.log_index = r.log_index AND f.uid = r.uid`,
      [name, facts.map((f) => f.blockHash.toLowerCase()), facts.map((f) => f.logIndex), facts.map((f) => f.uid)],
    );
  }

  async standingFacts(name: string): Promise<StandingFact[]> {
    await this.ready();
    const res = await this.pool.query<{ uid: string; block_number: string; block_hash: string; log_index: number }>(
      `SELECT uid, block_number, block_hash, log_index FROM "${this.schema}".indexer_facts WHERE name = $1`,
      [name],
    );
    return res.rows.map((r) => ({ uid: r.uid, blockNumber: Number(r.block_number), blockHash: r.block_hash, logIndex: r.log_index }));
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
