/**
 * A worker thread computing read models' digests (digest.ts) from a connection of its own, read-only, so
 * that hashing every document of a large read model never holds the service's event loop
 * (digest-cache.ts starts it). A read model none of whose documents changed since the digest it is given
 * (`known`) keeps that digest at its new checkpoint (appending app data moves every checkpoint and no
 * document); any other is read in one snapshot, as ReadModelStore.snapshot does, and hashed. It sends the
 * digests by name.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import pg from 'pg';
import { sqliteFile, type EventStoreOptions } from '../store/index.js';
import { snapshotSqlite, unchangedSqlite } from './models/sqlite.js';
import { snapshotPostgres, unchangedPostgres } from './models/postgres.js';
import { DigestBuilder, documentHash, type Digest } from './digest.js';

export interface DigestJob {
  store: EventStoreOptions;
  names: string[];
  /** The digests computed last, by name. */
  known: Record<string, Digest>;
}

export type DigestMessage = Record<string, Digest>;

async function run({ store, names, known }: DigestJob): Promise<void> {
  const digests: DigestMessage = {};
  const hashing = () => {
    const builder = new DigestBuilder();
    return { builder, visit: (key: string, doc: unknown) => builder.add(key, documentHash(doc)) };
  };
  if (store.databaseUrl) {
    const pool = new pg.Pool({ connectionString: store.databaseUrl, max: 1 });
    try {
      const schema = store.pgSchema ?? 'public';
      for (const name of names) {
        const kept = known[name] && (await unchangedPostgres(pool, schema, name, known[name]));
        if (typeof kept === 'number') digests[name] = { ...known[name], position: kept };
        else {
          const { builder, visit } = hashing();
          digests[name] = builder.finish(await snapshotPostgres(pool, schema, name, visit));
        }
      }
    } finally {
      await pool.end();
    }
  } else {
    const db = new Database(sqliteFile(store.dataDir), { readonly: true, fileMustExist: true });
    try {
      for (const name of names) {
        const kept = known[name] && unchangedSqlite(db, name, known[name]);
        if (typeof kept === 'number') digests[name] = { ...known[name], position: kept };
        else {
          const { builder, visit } = hashing();
          digests[name] = builder.finish(snapshotSqlite(db, name, visit));
        }
      }
    } finally {
      db.close();
    }
  }
  parentPort!.postMessage(digests);
}

await run(workerData as DigestJob);
