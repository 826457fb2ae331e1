/**
 * One worker of a parallel replay (replay.ts): folds its share of the log's streams into memory with the
 * order book's projections, says how many events it read, then sends each read model's (key, document
 * hash) pairs in key order for the main thread to merge into digests.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openEventStore, type EventStoreOptions, type StreamPartition } from '../eventstore/index.js';
import { MemoryReadModelStore } from '../readmodels/memory.js';
import { eventsAfter } from '../readmodels/fold.js';
import { documentHash } from '../readmodels/digest.js';
import { projections } from '../../projections/index.js';

export interface ReplayJob {
  store: EventStoreOptions;
  /** Replay the log up to this position. */
  to: number;
  partition: StreamPartition;
}

export type ReplayMessage =
  | { kind: 'folded'; events: number }
  | { kind: 'hashes'; models: Record<string, { keys: string[]; hashes: string[] }> };

// Large pages: fewer round trips into SQLite and fewer steps; a page is a few tens of megabytes at most.
const PAGE = 50_000;

async function run({ store: options, to, partition }: ReplayJob): Promise<void> {
  const log = await openEventStore(options);
  try {
    const target = new MemoryReadModelStore();
    for (const projection of projections) await target.prepare(projection);
    let after = 0;
    let events = 0;
    while (after < to) {
      const page = (await log.readAll(after, PAGE, partition.count > 1 ? partition : undefined)).filter((e) => e.position <= to);
      if (page.length === 0) break;
      await target.step(projections, async (from) => eventsAfter(page, from));
      after = page[page.length - 1].position;
      events += page.length;
    }
    parentPort!.postMessage({ kind: 'folded', events } satisfies ReplayMessage);

    // Twin read models (orders, solvable_orders) hold the same documents: hash them once.
    const byApply = new Map<unknown, { keys: string[]; hashes: string[] }>();
    const models: Record<string, { keys: string[]; hashes: string[] }> = {};
    for (const projection of projections) {
      let hashed = byApply.get(projection.apply);
      if (!hashed) {
        const keys: string[] = [];
        const hashes: string[] = [];
        await target.snapshot(projection.name, (key, doc) => {
          keys.push(key);
          hashes.push(documentHash(doc));
        });
        hashed = { keys, hashes };
        byApply.set(projection.apply, hashed);
      }
      models[projection.name] = hashed;
    }
    parentPort!.postMessage({ kind: 'hashes', models } satisfies ReplayMessage);
  } finally {
    await log.close();
  }
}

await run(workerData as ReplayJob);
