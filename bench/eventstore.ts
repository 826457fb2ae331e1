/**
 * Event store throughput (a measurement, not a test): single-event appends, each to a new stream, from
 * many concurrent callers, as order intake issues them. SQLite always; PostgreSQL when a database URL is
 * given (in a scratch schema, dropped afterwards). Run alone: `node dist/bench/eventstore.js`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { PostgresEventStore } from '../src/eventstore/postgres.js';
import { SqliteEventStore } from '../src/eventstore/sqlite.js';
import type { EventStore } from '../src/eventstore/types.js';

export interface EventStoreBenchOptions {
  databaseUrl?: string;
  /** Measured appends per store (default 30,000), after 2,000 for warming up. */
  appends?: number;
  /** Callers, each waiting for its append before the next (default 200). */
  concurrency?: number;
}

type Figures = Record<string, { value: number; unit: string }>;

// About the size of an OrderCreated event.
const orderData = (n: number) => ({
  uid: '0x' + n.toString(16).padStart(112, '0'),
  owner: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  sellToken: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
  buyToken: '0x6b175474e89094c44da98b954eedeac495271d0f',
  sellAmount: '1000000000000000000',
  buyAmount: '3000000000000000000000',
  validTo: 1_900_000_000,
  appData: '0x' + '00'.repeat(32),
  feeAmount: '0',
  kind: 'sell',
  partiallyFillable: false,
  signingScheme: 'eip712',
  signature: '0x' + 'ab'.repeat(65),
});

async function appendsPerSecond(store: EventStore, prefix: string, appends: number, concurrency: number) {
  let next = 0;
  const caller = async () => {
    while (next < appends) {
      const n = next++;
      await store.append(`${prefix}-${n}`, [{ type: 'OrderCreated', schemaVersion: 1, data: orderData(n) }], 'no_stream');
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, caller));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return Math.round(appends / seconds);
}

async function measure(store: EventStore, appends: number, concurrency: number): Promise<number> {
  await appendsPerSecond(store, 'warmup', 2000, concurrency);
  return appendsPerSecond(store, 'bench', appends, concurrency);
}

export async function measureEventStore(options: EventStoreBenchOptions = {}): Promise<Figures> {
  const appends = options.appends ?? 30_000;
  const concurrency = options.concurrency ?? 200;
  const figures: Figures = {};

  const dir = mkdtempSync(join(tmpdir(), 'ethgate-bench-eventstore-'));
  const sqlite = new SqliteEventStore(join(dir, 'events.sqlite'));
  try {
    figures.eventstore_sqlite_appends_per_s = { value: await measure(sqlite, appends, concurrency), unit: 'appends/s' };
  } finally {
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }

  if (options.databaseUrl) {
    const schema = `bench_eventstore_${process.pid}`;
    const postgres = await PostgresEventStore.open({ connectionString: options.databaseUrl, schema });
    try {
      figures.eventstore_postgres_appends_per_s = { value: await measure(postgres, appends, concurrency), unit: 'appends/s' };
    } finally {
      await postgres.close();
      const client = new pg.Client({ connectionString: options.databaseUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  }
  return figures;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await measureEventStore({ databaseUrl: loadConfig().databaseUrl });
  console.log(JSON.stringify(figures, null, 2));
}
