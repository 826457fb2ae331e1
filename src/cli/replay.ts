/**
 * npm run replay [-- --to <position>] [--out <file.sqlite>] [--workers <n>] [--json]
 *
 * Rebuilds every read model from position 0 of the configured event store (DATA_DIR's SQLite, or
 * DATABASE_URL) into a fresh store and prints the events per second and each read model's SHA-256 digest,
 * to compare with GET /api/v1/projections of the live service. By default the fresh store is memory, filled
 * by one worker thread per core (src/orderbook/replay.ts); with --out it is a new SQLite file holding the
 * documents and their indexed columns as the service keeps them, filled by one thread.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { loadConfig } from '../wiring/config.js';
import { openEventStore } from '../orderbook/store/index.js';
import { SqliteReadModelStore } from '../orderbook/read/models/sqlite.js';
import { replay, type ReplayResult } from '../orderbook/read/rebuild.js';
import { replayOrderbook } from '../orderbook/read/replay.js';
import { projections } from '../orderbook/read/projections/index.js';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}

function integerOption(name: string): number | undefined {
  const raw = option(name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new Error(`--${name} must be a non-negative integer, got "${raw}"`);
  return Number(raw);
}

async function intoSqlite(out: string, store: Parameters<typeof openEventStore>[0], to: number | undefined): Promise<ReplayResult> {
  if (existsSync(out)) throw new Error(`--out ${out} exists: the replay needs a fresh store`);
  const log = await openEventStore(store);
  const db = new Database(out);
  try {
    return await replay(log, new SqliteReadModelStore(db), projections, to);
  } finally {
    db.close();
    await log.close();
  }
}

async function main(): Promise<void> {
  const config = loadConfig();
  // Scanning connections (see SqliteEventStore): this process only reads the log from start to end.
  const store = { dataDir: config.dataDir, databaseUrl: config.databaseUrl, pgSchema: config.databaseSchema, scan: true };
  const to = integerOption('to');
  const out = option('out');
  const result = out
    ? await intoSqlite(out, store, to)
    : await replayOrderbook({ store, to, workers: integerOption('workers') });
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(result));
    return;
  }
  const rate = result.seconds > 0 ? Math.round(result.events / result.seconds) : result.events;
  console.log(`replayed ${result.events} events up to position ${result.position} in ${result.seconds.toFixed(2)} s: ${rate} events/s`);
  for (const [name, d] of Object.entries(result.digests)) {
    console.log(`${name.padEnd(16)} position ${d.position}  documents ${d.documents}  sha256 ${d.sha256}`);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`replay failed: ${(err as Error).message}`);
    process.exit(1);
  },
);
