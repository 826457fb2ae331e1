/**
 * The auditor's replay of the order book (npm run replay): every read model rebuilt from position 0 into
 * memory, its digest computed as GET /api/v1/projections computes the live one. The log is split by stream
 * over one worker thread per core (replay-worker.ts): each of the order book's documents depends on the
 * events of one stream (an order's, a trade's own order's), so the shares never touch the same document,
 * and each worker reads only its share. The workers' (key, hash) lists are merged in key order.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { openEventStore, type EventStoreOptions } from '../store/index.js';
import { DigestBuilder, type Digest } from './digest.js';
import type { ReplayResult } from './rebuild.js';
import type { ReplayJob, ReplayMessage } from './replay-worker.js';

export interface ReplayOptions {
  store: EventStoreOptions;
  /** Replay up to this position (default: the head when the replay starts). */
  to?: number;
  /** Worker threads (default: one per core). */
  workers?: number;
}


type Hashes = Extract<ReplayMessage, { kind: 'hashes' }>['models'];

interface WorkerResult {
  events: number;
  foldedAt: bigint;
  models: Hashes;
}

function runWorker(job: ReplayJob): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    // Every event leaves short-lived garbage (its row, its parsed data, intermediate states); with a young
    // generation this large it dies in cheap scavenges instead of being promoted and marked again and again
    // among the documents kept.
    const worker = new Worker(new URL('./replay-worker.js', import.meta.url), {
      workerData: job,
      resourceLimits: { maxYoungGenerationSizeMb: 256 },
    });
    let folded: { events: number; at: bigint } | undefined;
    worker.on('message', (message: ReplayMessage) => {
      if (message.kind === 'folded') folded = { events: message.events, at: process.hrtime.bigint() };
      else resolve({ events: folded!.events, foldedAt: folded!.at, models: message.models });
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`replay worker ${job.partition.index} exited with code ${code}`));
    });
  });
}

/** Merges the workers' key-ordered lists of one read model into its digest. */
function mergedDigest(lists: { keys: string[]; hashes: string[] }[], position: number): Digest {
  const builder = new DigestBuilder();
  const at = lists.map(() => 0);
  for (;;) {
    let next = -1;
    for (let i = 0; i < lists.length; i++) {
      if (at[i] < lists[i].keys.length && (next === -1 || lists[i].keys[at[i]] < lists[next].keys[at[next]])) next = i;
    }
    if (next === -1) return builder.finish(position);
    builder.add(lists[next].keys[at[next]], lists[next].hashes[at[next]]);
    at[next]++;
  }
}

export async function replayOrderbook(options: ReplayOptions): Promise<ReplayResult> {
  let to = options.to;
  if (to === undefined) {
    // Opened as the workers will open theirs (a scan, for npm run replay: see SqliteEventStore).
    const log = await openEventStore(options.store);
    to = await log.head().finally(() => log.close());
  }
  const count = options.workers ?? availableParallelism();
  const started = process.hrtime.bigint();
  const results = await Promise.all(
    Array.from({ length: count }, (_, index) => runWorker({ store: options.store, to: to!, partition: { index, count } })),
  );
  const folded = results.reduce((last, r) => (r.foldedAt > last ? r.foldedAt : last), started);
  const digests: Record<string, Digest> = {};
  for (const name of Object.keys(results[0].models)) {
    digests[name] = mergedDigest(results.map((r) => r.models[name]), to);
  }
  return {
    events: results.reduce((n, r) => n + r.events, 0),
    seconds: Number(folded - started) / 1e9,
    position: to,
    digests,
  };
}
