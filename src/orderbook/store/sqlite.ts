/**
 * The embedded event store: one SQLite file (better-sqlite3, WAL) owned by one process. better-sqlite3 is
 * synchronous, so a batch's transaction runs start to finish within one turn of the event loop: nothing
 * else in the process can interleave with it, and positions are taken in commit order. A batch's appends
 * are acknowledged, and subscribers told, once its commit is on disk.
 */
import { statSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import Database from 'better-sqlite3';
import { planBatch, type EventRow, type PreparedGroup, type BatchPlan } from './append-plan.js';
import { GroupCommitQueue } from './group-commit.js';
import { HeadListeners } from './head-listeners.js';
import { WalCheckpointer } from './wal-checkpointer.js';
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
import { boundaries, checkBoundaryCount, checkReadAll, checkStreamRead } from './read-args.js';

// position is the rowid: a single writer assigns it in commit order, and a rolled back batch leaves no gap
// because the next one takes max + 1 again.
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS events (
    position       INTEGER PRIMARY KEY,
    stream_id      TEXT    NOT NULL,
    stream_version INTEGER NOT NULL,
    type           TEXT    NOT NULL,
    schema_version INTEGER NOT NULL,
    data           TEXT    NOT NULL,
    recorded_at    TEXT    NOT NULL,
    UNIQUE (stream_id, stream_version)
  ) STRICT;
`;

const COLUMNS = 'position, stream_id, stream_version, type, schema_version, data, recorded_at';

// Rows as arrays (better-sqlite3's raw mode): replay reads millions, and building each event once from an
// array is about twice as fast as copying a row object.
type Row = [position: number, streamId: string, streamVersion: number, type: string, schemaVersion: number, data: string, recordedAt: string];

function toEvent([position, streamId, streamVersion, type, schemaVersion, data, recordedAt]: Row): StoredEvent {
  return { position, streamId, streamVersion, type, schemaVersion, data: JSON.parse(data) as unknown, recordedAt };
}

function prepareStatements(db: Database.Database) {
  return {
    head: db.prepare<[], number>('SELECT coalesce(max(position), 0) FROM events').pluck(),
    version: db
      .prepare<[string], number>('SELECT coalesce(max(stream_version), 0) FROM events WHERE stream_id = ?')
      .pluck(),
    insert: db.prepare<[number, string, number, string, number, string, string]>(
      `INSERT INTO events (position, stream_id, stream_version, type, schema_version, data, recorded_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    readStream: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM events WHERE stream_id = ? ORDER BY stream_version`).raw(),
    readAll: db.prepare<[number, number], Row>(`SELECT ${COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`).raw(),
    // Stream by stream along the (stream_id, stream_version) index, both ends of the range bounding the
    // index scan (an end given as a filter would scan on to the index's end for the last page).
    readStreams: db
      .prepare<[string, number, number, number], Row>(
        `SELECT ${COLUMNS} FROM events WHERE (stream_id, stream_version) > (?, ?) AND position <= ?
         ORDER BY stream_id, stream_version LIMIT ?`,
      )
      .raw(),
    readStreamsBefore: db
      .prepare<[string, number, string, number, number], Row>(
        `SELECT ${COLUMNS} FROM events WHERE (stream_id, stream_version) > (?, ?) AND stream_id < ? AND position <= ?
         ORDER BY stream_id, stream_version LIMIT ?`,
      )
      .raw(),
    count: db.prepare<[], number>('SELECT count(*) FROM events').pluck(),
    nthStream: db.prepare<[number], string>('SELECT stream_id FROM events ORDER BY stream_id LIMIT 1 OFFSET ?').pluck(),
  };
}

type Statements = ReturnType<typeof prepareStatements>;

export class SqliteEventStore implements EventStore {
  readonly kind = 'sqlite' as const;
  /**
   * The connection, for read models kept in the same file. The store owns it: close() closes it. Do not
   * write to the events table through it.
   */
  readonly db: Database.Database;

  private readonly queue: GroupCommitQueue;
  private readonly listeners: HeadListeners;
  private readonly statements: Statements;
  private readonly writeBatchTx: Database.Transaction<(batch: PreparedGroup[]) => BatchPlan>;
  /** The write-ahead log's file, synced after each commit (none when SQLite syncs commits itself). */
  private readonly walPath: string | undefined;
  /** The WAL, open for syncLog. */
  private wal: { file: FileHandle; inode: number } | undefined;
  /** Checkpoints the WAL off the event loop (none without WAL, or for a scan, which only reads). */
  private readonly checkpointer: WalCheckpointer | undefined;

  /**
   * `path`: the database file (created if missing; its directory must exist) or ':memory:'. `scan`: the
   * connection will read the whole log, as a replay does.
   */
  constructor(path: string, options: { scan?: boolean } = {}) {
    this.db = new Database(path);
    // 16 KiB pages for a new file (an existing one keeps its own): an event or an order document is 1-2 KB
    // of JSON, two to a 4 KiB page, and a commit writes one WAL frame, one pwrite, per page it changed; with
    // larger pages an order's rows share pages, so each order costs fewer writes and wastes less space.
    this.db.pragma('page_size = 16384');
    // An acknowledged append survives power loss, not only a kill -9: each batch's commit is followed by an
    // fdatasync of the WAL before its appends are acknowledged (syncLog). SQLite's own FULL would do that
    // fsync inside the commit, on the event loop, which then serves nothing else until the disk answers;
    // here it runs on libuv's thread pool. NORMAL keeps SQLite syncing around checkpoints, as FULL does.
    // Without WAL (an in-memory database, a file system without it) SQLite syncs each commit itself.
    const wal = this.db.pragma('journal_mode = WAL', { simple: true }) === 'wal';
    this.walPath = wal ? `${path}-wal` : undefined;
    this.db.pragma(wal ? 'synchronous = NORMAL' : 'synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    // The read models share this file: a 64 MB page cache keeps their indexes in memory. The WAL is
    // checkpointed on a worker thread (wal-checkpointer.ts); SQLite's own checkpoint, on the event loop,
    // stays as a backstop every 10,000 pages rather than 1,000, so that each often-changed page is copied
    // once instead of many times (bench/orderbook.ts measures order intake).
    this.db.pragma('cache_size = -65536');
    this.db.pragma('wal_autocheckpoint = 10000');
    if (options.scan && wal) {
      // Committed pages still in the WAL moved into the database file first, without waiting for any writer
      // (what SQLite does routinely), so that the scan finds every page in one place.
      this.db.pragma('wal_checkpoint(PASSIVE)');
    }
    this.db.exec(SCHEMA);
    this.checkpointer = wal && !options.scan ? new WalCheckpointer(path) : undefined;
    this.statements = prepareStatements(this.db);
    this.writeBatchTx = this.db.transaction((batch: PreparedGroup[]) => this.writeBatch(batch));
    this.listeners = new HeadListeners(this.statements.head.get()!);
    this.queue = new GroupCommitQueue(async (batch) => {
      const plan = this.writeBatchTx.immediate(batch);
      await this.syncLog();
      this.listeners.report(plan.head);
      return plan.outcomes;
    });
  }

  /**
   * Makes what the commits so far wrote to the WAL durable, off the event loop: one fdatasync on libuv's
   * thread pool. The WAL stays open between syncs (each trip through the thread pool waits for a turn of a
   * busy event loop: open, sync and close took three). SQLite keeps the WAL file while a connection is
   * open, but if it was removed and made again (its inode changed), the new one is opened: a kept
   * descriptor would sync a file nobody reads. SQLite removes it only after checkpointing it into the
   * database file and syncing that, so nothing acknowledged lived only in the old one.
   */
  private async syncLog(): Promise<void> {
    if (!this.walPath) return;
    const inode = statSync(this.walPath).ino;
    if (this.wal?.inode !== inode) {
      const previous = this.wal;
      this.wal = { file: await open(this.walPath, 'r'), inode };
      await previous?.file.close();
    }
    await this.wal.file.datasync();
  }

  append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    return this.queue.append(streamId, events, expected);
  }

  appendStreams(appends: StreamAppend[]): Promise<AppendResult[]> {
    return this.queue.appendStreams(appends);
  }

  async readStream(streamId: string): Promise<StoredEvent[]> {
    return this.statements.readStream.all(streamId).map(toEvent);
  }

  async aggregateStream<State>(
    streamId: string,
    evolve: (state: State, event: StoredEvent) => State,
    initial: State,
  ): Promise<AggregatedStream<State>> {
    let state = initial;
    let version = 0;
    for (const row of this.statements.readStream.iterate(streamId)) {
      state = evolve(state, toEvent(row));
      version = row[2];
    }
    return { state, version };
  }

  async readAll(after: number, limit: number): Promise<StoredEvent[]> {
    checkReadAll(after, limit);
    return this.statements.readAll.all(after, limit).map(toEvent);
  }

  async readStreams(read: StreamRead): Promise<StoredEvent[]> {
    checkStreamRead(read);
    const { after, before, upTo, limit } = read;
    const rows = before === undefined
      ? this.statements.readStreams.all(after.streamId, after.version, upTo, limit)
      : this.statements.readStreamsBefore.all(after.streamId, after.version, before, upTo, limit);
    return rows.map(toEvent);
  }

  async streamBoundaries(count: number): Promise<string[]> {
    checkBoundaryCount(count);
    return boundaries(count, this.statements.count.get()!, (n) => this.statements.nthStream.get(n)!);
  }

  async head(): Promise<number> {
    return this.statements.head.get()!;
  }

  /** Only appends of this process are seen: the SQLite file has one writing process. */
  subscribe(listener: (head: number) => void): () => void {
    return this.listeners.add(listener);
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    await this.queue.close();
    await this.checkpointer?.stop();
    await this.wal?.file.close();
    this.wal = undefined;
    this.db.close();
  }

  // Runs inside the batch's transaction.
  private writeBatch(batch: PreparedGroup[]): BatchPlan {
    const versions = new Map<string, number>();
    for (const group of batch) {
      for (const { streamId } of group) {
        if (!versions.has(streamId)) versions.set(streamId, this.statements.version.get(streamId)!);
      }
    }
    const plan = planBatch(batch, versions, this.statements.head.get()!, new Date().toISOString());
    for (const row of plan.rows) this.insert(row);
    return plan;
  }

  private insert(row: EventRow): void {
    this.statements.insert.run(
      row.position,
      row.streamId,
      row.streamVersion,
      row.type,
      row.schemaVersion,
      row.json,
      row.recordedAt,
    );
  }
}
