/**
 * One worker of a parallel replay (replay.ts): folds its share of the log's streams into memory with the
 * order book's projections, says how many events it read, then sends each read model's (key, document
 * hash) pairs in key order for the main thread to merge into digests.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openEventStore, type EventStoreOptions, type StreamPartition } from '../store/index.js';
import { MemoryReadModelStore } from './models/memory.js';
import { foldLog } from './rebuild.js';
import { documentHash } from './digest.js';
import { projections } from './projections/index.js';

export interface ReplayJob {
  store: EventStoreOptions;
  /** Replay the log up to this position. */
  to: number;
  partition: StreamPartition;
}

/** A read model's document keys in key order, with each document's hash. */
type Hashes = { keys: string[]; hashes: string[] };

export type ReplayMessage =
  | { kind: 'folded'; events: number }
  | { kind: 'hashes'; models: Record<string, Hashes> };

// Small pages: a page's rows, texts and parsed events live until it is applied, and every scavenge copies
// what lives; a page of a thousand events is about a megabyte, one of fifty thousand was fifty, copied
// again at each scavenge (bench/orderbook.ts replay: the figures are in bench-results.json).
const PAGE = 1_000;

async function run({ store: options, to, partition }: ReplayJob): Promise<void> {
  const log = await openEventStore(options);
  try {
    const target = new MemoryReadModelStore();
    for (const projection of projections) await target.prepare(projection);
    const { events } = await foldLog(log, target, projections, to, { page: PAGE, partition });
    parentPort!.postMessage({ kind: 'folded', events } satisfies ReplayMessage);

    const models: Record<string, Hashes> = {};
    for (const projection of projections) {
      const hashed: Hashes = { keys: [], hashes: [] };
      await target.snapshot(projection.name, (key, doc) => {
        hashed.keys.push(key);
        hashed.hashes.push(documentHash(doc));
      });
      models[projection.name] = hashed;
    }
    parentPort!.postMessage({ kind: 'hashes', models } satisfies ReplayMessage);
  } finally {
    await log.close();
  }
}

await run(workerData as ReplayJob);
