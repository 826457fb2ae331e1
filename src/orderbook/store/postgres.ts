/**
 * The shared event store: PostgreSQL (pg), for several service processes on one database.
 *
 * Positions without overtaking. A sequence would hand out positions before commit, so a transaction with
 * position 11 could commit before the one holding 10, and a reader that saw 11 would skip 10 forever.
 * Instead the log's head is one row (events_head) that every append transaction locks first
 * (SELECT ... FOR UPDATE) and updates last. Appends are thereby serialised across all processes: a batch
 * takes its positions (head + 1, ...) inside the lock, and the next batch can only take the lock once the
 * previous one's commit is visible (PostgreSQL makes a transaction visible before it releases its locks).
 * So commits happen in position order, every snapshot sees a prefix of the log, and a rolled back batch
 * leaves no gap. The same lock makes the version checks safe: versions are read after taking it.
 * Throughput comes from group commit: one transaction (and one WAL flush) per batch of appends.
 *
 * New events reach other processes through NOTIFY, sent inside the append transaction (so delivered only
 * on commit, in commit order) with the new head as payload; each store LISTENs on one connection.
 */
import pg from 'pg';
import { planBatch, type AppendOutcome, type PreparedGroup } from './append-plan.js';
import { GroupCommitQueue } from './group-commit.js';
import { HeadListeners } from './head-listeners.js';
import { boundaries, checkBoundaryCount, checkReadAll, checkStreamRead } from './read-args.js';
import type {
  AggregatedStream,
  AppendResult,
  EventStore,
  ExpectedVersion,
  NewEvent,
  StoredEvent,
  StreamAppend,
  StreamRead,
} from './types.js';
import { logger } from '../../shared/logger.js';

const log = logger.child({ component: 'eventstore' });

export interface PostgresEventStoreOptions {
  connectionString: string;
  /** Schema that holds the tables, created when missing (default `public`): lower case, digits, `_`. */
  schema?: string;
  /** Connections in the pool, which read models may share (default 10). */
  poolSize?: number;
}

// Short and plain enough to need no quoting rules and to leave room for the channel name (63 bytes max).
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,47}$/;
// Any fixed key: concurrent first opens must not race on CREATE TABLE IF NOT EXISTS.
const MIGRATION_LOCK = 0x65746761;
const RETRY_LISTEN_MS = 1000;

interface Names {
  events: string;
  head: string;
  channel: string;
}

function migration({ events, head }: Names, schema: string): string {
  return `
    CREATE SCHEMA IF NOT EXISTS "${schema}";
    CREATE TABLE IF NOT EXISTS ${events} (
      position       bigint      PRIMARY KEY,
      stream_id      text        NOT NULL,
      stream_version integer     NOT NULL,
      type           text        NOT NULL,
      schema_version integer     NOT NULL,
      data           jsonb       NOT NULL,
      recorded_at    timestamptz NOT NULL,
      UNIQUE (stream_id, stream_version)
    );
    CREATE TABLE IF NOT EXISTS ${head} (
      only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
      head     bigint  NOT NULL
    );
    INSERT INTO ${head} (head) VALUES (0) ON CONFLICT DO NOTHING;
  `;
}

interface Row {
  position: string;
  stream_id: string;
  stream_version: number;
  type: string;
  schema_version: number;
  data: unknown;
  recorded_at: Date;
}

const COLUMNS = 'position, stream_id, stream_version, type, schema_version, data, recorded_at';

function toEvent(row: Row): StoredEvent {
  return {
    position: Number(row.position),
    streamId: row.stream_id,
    streamVersion: row.stream_version,
    type: row.type,
    schemaVersion: row.schema_version,
    data: row.data,
    recordedAt: row.recorded_at.toISOString(),
  };
}

export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;

  /** Opens the store in `options.schema`, creating its tables if needed (safe to run from several processes). */
  static async open(options: PostgresEventStoreOptions): Promise<PostgresEventStore> {
    const schema = options.schema ?? 'public';
    if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid event store schema name: ${schema}`);
    const names: Names = { events: `"${schema}".events`, head: `"${schema}".events_head`, channel: `${schema}_events` };
    const pool = new pg.Pool({ connectionString: options.connectionString, max: options.poolSize ?? 10 });
    // An idle connection that dies (server restart) is dropped by the pool; without a handler it would crash.
    pool.on('error', (err) => log.warn({ err }, 'idle PostgreSQL connection failed'));
    try {
      const client = await pool.connect();
      try {
        await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${MIGRATION_LOCK}); ${migration(names, schema)} COMMIT;`);
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
      const head = await readHead(pool, names);
      return new PostgresEventStore(pool, options.connectionString, schema, names, head);
    } catch (err) {
      await pool.end();
      throw err;
    }
  }

  private readonly queue = new GroupCommitQueue((batch) => this.writeBatch(batch), 500);
  private readonly listeners: HeadListeners;
  private listenerClient: pg.Client | undefined;
  private listenReady: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    /** The store's pool, for read models in the same database. The store owns it: close() ends it. */
    readonly pool: pg.Pool,
    private readonly connectionString: string,
    /** The schema holding the events tables. */
    readonly schema: string,
    private readonly names: Names,
    head: number,
  ) {
    this.listeners = new HeadListeners(head);
  }

  append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    return this.queue.append(streamId, events, expected);
  }

  appendStreams(appends: StreamAppend[]): Promise<AppendResult[]> {
    return this.queue.appendStreams(appends);
  }

  async aggregateStream<State>(
    streamId: string,
    evolve: (state: State, event: StoredEvent) => State,
    initial: State,
  ): Promise<AggregatedStream<State>> {
    const events = await this.readStream(streamId);
    return { state: events.reduce(evolve, initial), version: events.at(-1)?.streamVersion ?? 0 };
  }

  async readStream(streamId: string): Promise<StoredEvent[]> {
    const { rows } = await this.pool.query<Row>(
      `SELECT ${COLUMNS} FROM ${this.names.events} WHERE stream_id = $1 ORDER BY stream_version`,
      [streamId],
    );
    return rows.map(toEvent);
  }

  async readAll(after: number, limit: number): Promise<StoredEvent[]> {
    checkReadAll(after, limit);
    const { rows } = await this.pool.query<Row>(
      `SELECT ${COLUMNS} FROM ${this.names.events} WHERE position > $1 ORDER BY position LIMIT $2`,
      [after, limit],
    );
    return rows.map(toEvent);
  }

  async readStreams(read: StreamRead): Promise<StoredEvent[]> {
    checkStreamRead(read);
    const { after, before, upTo, limit } = read;
    // The range's end bounds the index scan, as in SqliteEventStore.
    const { rows } = before === undefined
      ? await this.pool.query<Row>(
          `SELECT ${COLUMNS} FROM ${this.names.events} WHERE (stream_id, stream_version) > ($1, $2) AND position <= $3
           ORDER BY stream_id, stream_version LIMIT $4`,
          [after.streamId, after.version, upTo, limit],
        )
      : await this.pool.query<Row>(
          `SELECT ${COLUMNS} FROM ${this.names.events}
           WHERE (stream_id, stream_version) > ($1, $2) AND stream_id < $5 AND position <= $3
           ORDER BY stream_id, stream_version LIMIT $4`,
          [after.streamId, after.version, upTo, limit, before],
        );
    return rows.map(toEvent);
  }

  async streamBoundaries(count: number): Promise<string[]> {
    checkBoundaryCount(count);
    const { rows } = await this.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${this.names.events}`);
    return boundaries(count, Number(rows[0].n), async (n) => {
      const found = await this.pool.query<{ stream_id: string }>(
        `SELECT stream_id FROM ${this.names.events} ORDER BY stream_id LIMIT 1 OFFSET $1`,
        [n],
      );
      return found.rows[0].stream_id;
    });
  }

  head(): Promise<number> {
    return readHead(this.pool, this.names);
  }

  /** Sees appends of every process on the database; see also listening(). */
  subscribe(listener: (head: number) => void): () => void {
    const unsubscribe = this.listeners.add(listener);
    void this.startListening().catch(() => undefined); // failures are retried by listenFailed
    return unsubscribe;
  }

  /**
   * Resolves once appends by other processes reach this store's subscribers (its LISTEN is active);
   * appends committed earlier are reported to them at that moment if they are newer than what they heard.
   */
  listening(): Promise<void> {
    return this.startListening();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.close();
    clearTimeout(this.retryTimer);
    await this.listenReady?.catch(() => undefined);
    await this.listenerClient?.end().catch(() => undefined);
    await this.pool.end();
  }

  private async writeBatch(batch: PreparedGroup[]): Promise<AppendOutcome[]> {
    const { events, head, channel } = this.names;
    const client = await this.pool.connect();
    let failure: Error | undefined;
    try {
      // Each round trip waits for a turn of a busy event loop, so statements without parameters share one
      // message (the simple query protocol answers one result per statement): BEGIN with the lock, and at the
      // end the head's update, the notification and COMMIT (their values are a number and a checked name).
      const [, locked] = (await client.query(`BEGIN; SELECT head FROM ${head} FOR UPDATE`)) as unknown as pg.QueryResult<{ head: string }>[];
      const streamIds = [...new Set(batch.flatMap((group) => group.map((a) => a.streamId)))];
      const current = await client.query<{ stream_id: string; version: number }>(
        `SELECT stream_id, max(stream_version) AS version FROM ${events}
         WHERE stream_id = ANY($1::text[]) GROUP BY stream_id`,
        [streamIds],
      );
      const versions = new Map(current.rows.map((r) => [r.stream_id, r.version]));
      const plan = planBatch(batch, versions, Number(locked.rows[0].head), new Date().toISOString());
      if (plan.rows.length > 0) {
        const column = <K extends keyof (typeof plan.rows)[number]>(key: K) => plan.rows.map((row) => row[key]);
        await client.query(
          `INSERT INTO ${events} (position, stream_id, stream_version, type, schema_version, data, recorded_at)
           SELECT p, s, v, t, sv, d::jsonb, $7::timestamptz
           FROM unnest($1::bigint[], $2::text[], $3::int[], $4::text[], $5::int[], $6::text[]) AS r(p, s, v, t, sv, d)`,
          [
            column('position'),
            column('streamId'),
            column('streamVersion'),
            column('type'),
            column('schemaVersion'),
            column('json'),
            plan.rows[0].recordedAt,
          ],
        );
      }
      await client.query(
        plan.rows.length > 0 ? `UPDATE ${head} SET head = ${plan.head}; SELECT pg_notify('${channel}', '${plan.head}'); COMMIT` : 'COMMIT',
      );
      this.listeners.report(plan.head);
      return plan.outcomes;
    } catch (err) {
      failure = err as Error;
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      // A connection that failed mid-transaction is closed rather than handed to the next user.
      client.release(failure);
    }
  }

  private startListening(): Promise<void> {
    if (!this.listenReady) {
      this.listenReady = this.listen();
      this.listenReady.catch((err: unknown) => this.listenFailed(err));
    }
    return this.listenReady;
  }

  private async listen(): Promise<void> {
    if (this.closed) throw new Error('the event store is closed');
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on('notification', (message) => this.listeners.report(Number(message.payload)));
    client.on('error', (err) => {
      if (this.listenerClient === client) this.listenFailed(err);
    });
    try {
      await client.connect();
      await client.query(`LISTEN "${this.names.channel}"`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    this.listenerClient = client;
    // Appends committed before LISTEN took effect notified nobody here.
    this.listeners.report(await this.head());
  }

  private listenFailed(err: unknown): void {
    const client = this.listenerClient;
    this.listenerClient = undefined;
    this.listenReady = undefined;
    void client?.end().catch(() => undefined);
    if (this.closed) return;
    log.warn({ err }, `not listening for new events; trying again in ${RETRY_LISTEN_MS} ms`);
    this.retryTimer = setTimeout(() => void this.startListening().catch(() => undefined), RETRY_LISTEN_MS);
    this.retryTimer.unref();
  }
}

async function readHead(pool: pg.Pool, { head }: Names): Promise<number> {
  const { rows } = await pool.query<{ head: string }>(`SELECT head FROM ${head}`);
  return Number(rows[0].head);
}
