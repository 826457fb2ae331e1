/**
 * The auditor's replay of the order book (npm run replay): every read model rebuilt from position 0 in
 * memory, its digest computed as GET /api/v1/projections computes the live one. The log's streams are cut
 * into ranges of about as many events, one per worker thread (one per core by default;
 * replay-worker.ts): each of the order book's documents depends on the events of one stream, so the ranges
 * never touch the same document, and each worker reads only its range. The workers' (key, hash) lists are
 * merged in key order; a key found in two ranges would break that rule, and fails the replay.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { openEventStore, type EventStoreOptions } from '../store/index.js';
import { DigestBuilder, type Digest } from './digest.js';
import type { ReplayResult } from './rebuild.js';
import type { Hashes, ReplayJob, ReplayMessage } from './replay-worker.js';

export interface ReplayOptions {
  store: EventStoreOptions;
  /** Replay up to this position (default: the head when the replay starts). */
  to?: number;
  /** Worker threads (default: one per core). */
  workers?: number;
}

function runWorker(job: ReplayJob): Promise<ReplayMessage> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./replay-worker.js', import.meta.url), { workerData: job });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`replay worker for streams from "${job.from}" exited with code ${code}`));
    });
  });
}

/** Merges the workers' key-ordered lists of one read model into its digest. */
function mergedDigest(name: string, lists: Hashes[], position: number): Digest {
  const builder = new DigestBuilder();
  const at = lists.map(() => 0);
  let previous: string | undefined;
  for (;;) {
    let next = -1;
    for (let i = 0; i < lists.length; i++) {
      if (at[i] < lists[i].keys.length && (next === -1 || lists[i].keys[at[i]] < lists[next].keys[at[next]])) next = i;
    }
    if (next === -1) return builder.finish(position);
    const key = lists[next].keys[at[next]];
    if (key === previous) throw new Error(`read model ${name}: document ${key} depends on events of more than one stream`);
    builder.add(key, lists[next].hashes[at[next]]);
    previous = key;
    at[next]++;
  }
}

export async function replayOrderbook(options: ReplayOptions): Promise<ReplayResult> {
  const started = process.hrtime.bigint();
  // Opened as the workers will open theirs (a scan, for npm run replay: see SqliteEventStore).
  const log = await openEventStore(options.store);
  let to: number;
  let cuts: string[];
  try {
    to = options.to ?? (await log.head());
    cuts = await log.streamBoundaries(options.workers ?? availableParallelism());
  } finally {
    await log.close();
  }
  const starts = ['', ...cuts];
  const results = await Promise.all(
    starts.map((from, i) => runWorker({ store: options.store, to, from, before: starts[i + 1] })),
  );
  const digests: Record<string, Digest> = {};
  for (const name of Object.keys(results[0].models)) {
    digests[name] = mergedDigest(name, results.map((r) => r.models[name]), to);
  }
  return {
    events: results.reduce((n, r) => n + r.events, 0),
    seconds: Number(process.hrtime.bigint() - started) / 1e9,
    position: to,
    digests,
  };
}
