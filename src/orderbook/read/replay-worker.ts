/**
 * One worker of a replay (replay.ts): folds its range of the log's streams with the order book's
 * projections, one stream at a time. Each document depends on the events of one stream (an order's; a
 * trade's own order's), so once a stream's events are folded its documents are final: each is hashed then
 * forgotten, and the worker holds one stream's documents instead of the whole book (which, held to the
 * end, cost more in garbage collection than the fold itself). It sends how many events it read and each
 * read model's (key, document hash) pairs in key order, for the main thread to merge into digests.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openEventStore, type EventStoreOptions, type StoredEvent, type StreamCursor } from '../store/index.js';
import { applyBatch } from './models/fold.js';
import { documentHash } from './digest.js';
import { projections } from './projections/index.js';

export interface ReplayJob {
  store: EventStoreOptions;
  /** Replay the log up to this position. */
  to: number;
  /** The worker's streams: from this id (included; '' for the first) up to `before` (excluded; none for the last). */
  from: string;
  before?: string;
}

/** A read model's document keys in key order, with each document's hash. */
export type Hashes = { keys: string[]; hashes: string[] };

export interface ReplayMessage {
  events: number;
  models: Record<string, Hashes>;
}

// Small pages: a page's rows and parsed events live until they are folded, and every scavenge copies what
// lives and promotes what lived through two (bench/orderbook.ts replay: the figures are in
// bench-results.json).
const PAGE = 100;

/** Pairs sorted by key (bytewise, as the SQL stores order them: keys are ASCII). */
function sorted({ keys, hashes }: Hashes): Hashes {
  let inOrder = true;
  for (let i = 1; i < keys.length && inOrder; i++) inOrder = keys[i - 1] < keys[i];
  if (inOrder) return { keys, hashes };
  const order = keys.map((_, i) => i).sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0));
  return { keys: order.map((i) => keys[i]), hashes: order.map((i) => hashes[i]) };
}

async function run({ store: options, to, from, before }: ReplayJob): Promise<void> {
  const log = await openEventStore(options);
  try {
    const hashed: Hashes[] = projections.map(() => ({ keys: [], hashes: [] }));
    // The current stream's events, folded by the projections once the stream ends. Each fold starts from
    // new maps: one map cleared again and again saw its documents survive scavenges into old space
    // (--trace-gc-nvp: a third of the young generation promoted at each), and the replay spent a quarter of
    // its time in GC.
    let streamEvents: StoredEvent[] = [];
    const streamDone = () => {
      projections.forEach((projection, i) => {
        const docs = new Map<string, unknown>();
        applyBatch(projection, streamEvents, docs);
        for (const [key, doc] of docs) {
          hashed[i].keys.push(key);
          hashed[i].hashes.push(documentHash(doc));
        }
      });
      streamEvents = [];
    };

    let events = 0;
    let stream: string | undefined;
    let after: StreamCursor = { streamId: from, version: 0 };
    for (;;) {
      const page = await log.readStreams({ after, before, upTo: to, limit: PAGE });
      if (page.length === 0) break;
      for (const event of page) {
        if (event.streamId !== stream) {
          streamDone();
          stream = event.streamId;
        }
        streamEvents.push(event);
      }
      const last = page[page.length - 1];
      after = { streamId: last.streamId, version: last.streamVersion };
      events += page.length;
    }
    streamDone();

    const models: Record<string, Hashes> = {};
    projections.forEach((projection, i) => (models[projection.name] = sorted(hashed[i])));
    parentPort!.postMessage({ events, models } satisfies ReplayMessage);
  } finally {
    await log.close();
  }
}

await run(workerData as ReplayJob);
