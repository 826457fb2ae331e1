/**
 * A separate process that appends to an event store, for the durability and multi-writer tests: it keeps
 * `concurrency` single-event appends in flight, each to a new stream `${prefix}-${n}`, and prints
 * "<position> <streamId>" on stdout for each acknowledged append (stdout to a pipe is synchronous on
 * Linux, so a printed line means the append had been acknowledged). It stops after `count` appends, or
 * runs until killed when `count` is absent.
 *
 * Usage: node eventstore-writer.js '<WriterJob as JSON>'
 */
import { PostgresEventStore } from '../../src/orderbook/store/postgres.js';
import { SqliteEventStore } from '../../src/orderbook/store/sqlite.js';
import type { EventStore } from '../../src/orderbook/store/types.js';

export type WriterTarget = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string; schema: string };

export interface WriterJob {
  target: WriterTarget;
  prefix: string;
  concurrency: number;
  count?: number;
}

async function open(target: WriterTarget): Promise<EventStore> {
  if (target.kind === 'sqlite') return new SqliteEventStore(target.path);
  return PostgresEventStore.open({ connectionString: target.url, schema: target.schema });
}

async function run(job: WriterJob): Promise<void> {
  const store = await open(job.target);
  let issued = 0;
  const worker = async () => {
    while (job.count === undefined || issued < job.count) {
      const streamId = `${job.prefix}-${++issued}`;
      const data = { n: issued, note: 'x'.repeat(200) };
      const { position } = await store.append(streamId, [{ type: 'Written', schemaVersion: 1, data }], 'no_stream');
      process.stdout.write(`${position} ${streamId}\n`);
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, worker));
  await store.close();
}

run(JSON.parse(process.argv[2]) as WriterJob).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
