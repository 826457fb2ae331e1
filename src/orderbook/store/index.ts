/** Opening the configured event store (PostgreSQL when a database URL is set, else SQLite under DATA_DIR), and the quote store beside it. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PostgresEventStore } from './postgres.js';
import { SqliteEventStore } from './sqlite.js';
import { SqliteQuoteStore } from './quotes-sqlite.js';
import { PostgresQuoteStore } from './quotes-postgres.js';
import type { QuoteStore, QuoteStoreLimits } from './quote-store.js';

export * from './types.js';
export { PostgresEventStore, type PostgresEventStoreOptions } from './postgres.js';
export { SqliteEventStore } from './sqlite.js';
export * from './quote-store.js';

export interface EventStoreOptions {
  /** Directory of the SQLite file (`events.sqlite`), created if missing. */
  dataDir: string;
  databaseUrl?: string;
  /** PostgreSQL schema of the tables (default `public`). */
  pgSchema?: string;
  /** The process only reads the log from start to end (npm run replay): SQLite prepares for a scan (see SqliteEventStore). */
  scan?: boolean;
}

/** Either store; `kind` tells which, and with it whether `db` (SQLite) or `pool` (PostgreSQL) is there. */
export type OpenedEventStore = SqliteEventStore | PostgresEventStore;

export async function openEventStore(options: EventStoreOptions): Promise<OpenedEventStore> {
  if (options.databaseUrl) {
    return PostgresEventStore.open({ connectionString: options.databaseUrl, schema: options.pgSchema });
  }
  mkdirSync(options.dataDir, { recursive: true });
  return new SqliteEventStore(sqliteFile(options.dataDir), { scan: options.scan });
}

/** The SQLite file of the log (and of the read models and quotes beside it) under `dataDir`. */
export function sqliteFile(dataDir: string): string {
  return join(dataDir, 'events.sqlite');
}

/** The quote store in the event store's database: the same SQLite connection, or the same schema and pool. */
export function quoteStoreFor(events: OpenedEventStore, limits: QuoteStoreLimits): QuoteStore {
  return events.kind === 'sqlite' ? new SqliteQuoteStore(events.db, limits) : new PostgresQuoteStore(events.pool, events.schema, limits);
}
