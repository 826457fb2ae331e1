/**
 * The worker of wal-checkpointer.ts: a connection of its own to the log's SQLite file, which checkpoints the
 * WAL (PASSIVE: never waits for the writer, copies what is committed) at every interval, until told to stop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { CheckpointJob } from './wal-checkpointer.js';

const { path, intervalMs } = workerData as CheckpointJob;
const db = new Database(path, { fileMustExist: true });

const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy (another checkpoint runs) or the file is going away: the next interval tries again.
  }
}, intervalMs);

parentPort!.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort!.close();
});
