/**
 * Moves the SQLite log's committed pages from its write-ahead log into the database file on a worker
 * thread (wal-checkpoint-worker.ts, a connection of its own), every CHECKPOINT_INTERVAL_MS. SQLite would
 * otherwise checkpoint inside a commit on the event loop once the WAL holds wal_autocheckpoint pages:
 * copying the pages and syncing the file there held the loop (which the gateway shares) for tens of
 * milliseconds every few seconds of steady writes. The automatic checkpoint stays as a backstop: the WAL
 * restarts from its beginning only after a checkpoint that nothing wrote during, which the one writer's own
 * checkpoint is; by then the worker has copied nearly every page, so it has little left to copy.
 */
import { Worker } from 'node:worker_threads';

/** How often the worker checkpoints (a checkpoint with nothing new to copy costs a look at the WAL index). */
export const CHECKPOINT_INTERVAL_MS = 200;

export interface CheckpointJob {
  path: string;
  intervalMs: number;
}

export class WalCheckpointer {
  private readonly worker: Worker;
  private stopped: Promise<void> | undefined;

  constructor(path: string, intervalMs = CHECKPOINT_INTERVAL_MS) {
    this.worker = new Worker(new URL('./wal-checkpoint-worker.js', import.meta.url), { workerData: { path, intervalMs } satisfies CheckpointJob });
    // A checkpoint that failed is SQLite's own to do at the backstop; the worker's end is not the log's.
    this.worker.on('error', () => undefined);
    this.worker.unref();
  }

  /**
   * Ends the worker's connection (before the store closes its own, so that SQLite's last close checkpoints).
   * The worker keeps the process alive meanwhile: a process whose last task is closing its store would
   * otherwise end, with nothing left on its event loop, before the store closed.
   */
  stop(): Promise<void> {
    return (this.stopped ??= new Promise<void>((resolve) => {
      this.worker.ref();
      this.worker.once('exit', () => resolve());
      this.worker.postMessage('stop');
    }));
  }
}
