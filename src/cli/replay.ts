/**
 * npm run replay [-- --to <position>] [--out <file.sqlite>] [--json]
 *
 * Rebuilds every read model from position 0 of the configured event store (DATA_DIR's SQLite, or
 * DATABASE_URL) into a fresh SQLite store (in memory unless --out), and prints the events per second and
 * each read model's SHA-256 digest, to compare with GET /api/v1/projections of the live service.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { loadConfig } from '../config.js';
import { openEventStore } from '../eventstore/index.js';
import { SqliteReadModelStore } from '../readmodels/sqlite.js';
import { replay } from '../readmodels/replay.js';
import { projections } from '../../projections/index.js';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}

async function main(): Promise<void> {
  const config = loadConfig();
  const out = option('out');
  if (out && existsSync(out)) throw new Error(`--out ${out} exists: the replay needs a fresh store`);
  const to = option('to') === undefined ? undefined : Number(option('to'));
  const log = await openEventStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, pgSchema: config.databaseSchema });
  const db = new Database(out ?? ':memory:');
  try {
    const result = await replay(log, new SqliteReadModelStore(db), projections, to);
    if (process.argv.includes('--json')) {
      console.log(JSON.stringify(result));
      return;
    }
    const rate = result.seconds > 0 ? Math.round(result.events / result.seconds) : result.events;
    console.log(`replayed ${result.events} events up to position ${result.position} in ${result.seconds.toFixed(2)} s: ${rate} events/s`);
    for (const [name, d] of Object.entries(result.digests)) {
      console.log(`${name.padEnd(16)} position ${d.position}  documents ${d.documents}  sha256 ${d.sha256}`);
    }
  } finally {
    db.close();
    await log.close();
  }
}

main().catch((err) => {
  console.error(`replay failed: ${(err as Error).message}`);
  process.exit(1);
});
