/** The read-model store that goes with an event store: same database, same connection or pool. */
import type { OpenedEventStore } from '../../store/index.js';
import type { ReadModelStore } from './types.js';
import { SqliteReadModelStore } from './sqlite.js';
import { PostgresReadModelStore } from './postgres.js';

export function readModelStoreFor(events: OpenedEventStore): ReadModelStore {
  return events.kind === 'sqlite'
    ? new SqliteReadModelStore(events.db)
    : new PostgresReadModelStore(events.pool, events.schema);
}
