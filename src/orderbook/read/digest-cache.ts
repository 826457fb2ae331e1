/**
 * The digests GET /api/v1/projections answers, kept per position and computed off the request path: a
 * digest hashes every document of a read model, so it is computed in a worker thread (digest-worker.ts)
 * with its own read-only connection, never on the event loop, and only when a read model moved since the
 * last one (and there only when one of its documents changed: otherwise the last digest holds at the new
 * checkpoint). One computation runs at a time; requests that arrive meanwhile share the next one, which starts
 * when it ends (it must, to show what they asked after). Whatever clients ask, the service thus hashes the
 * read models at most once over, one computation after the other. The digests are those a replay gives:
 * the same function over the same documents (digest.ts).
 */
import { Worker } from 'node:worker_threads';
import type { EventStoreOptions } from '../store/index.js';
import type { ReadModelStore } from './models/types.js';
import { digestReadModel, type Digest } from './digest.js';
import type { DigestJob, DigestMessage } from './digest-worker.js';

/** Computes the digests of the named read models; `known`: the digests computed last, which it may keep. */
export type DigestComputation = (names: string[], known: Record<string, Digest>) => Promise<Record<string, Digest>>;

/** In a worker thread, on a connection of its own to the store `store` opens. */
export function digestsInWorker(store: EventStoreOptions): DigestComputation {
  return (names, known) =>
    new Promise((resolve, reject) => {
      const worker = new Worker(new URL('./digest-worker.js', import.meta.url), { workerData: { store, names, known } satisfies DigestJob });
      worker.once('message', (digests: DigestMessage) => resolve(digests));
      worker.once('error', reject);
      worker.once('exit', (code) => {
        if (code !== 0) reject(new Error(`digest worker exited with code ${code}`));
      });
    });
}

/** On the event loop, through the store itself: for stores no other connection can read (in memory). */
export function digestsInProcess(store: ReadModelStore): DigestComputation {
  return async (names) => {
    const digests: Record<string, Digest> = {};
    for (const name of names) digests[name] = await digestReadModel(store, name);
    return digests;
  };
}

export class DigestCache {
  private readonly kept = new Map<string, Digest>();
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;

  constructor(
    private readonly compute: DigestComputation,
    private readonly names: string[],
  ) {}

  /** The digest of read model `name` at `position` or later (its checkpoint when asked). */
  async digest(name: string, position: number): Promise<Digest> {
    const kept = this.kept.get(name);
    if (kept && kept.position >= position) return kept;
    await this.refresh();
    return this.kept.get(name)!;
  }

  /** A computation that starts after this call: the one queued, or a new one. */
  private refresh(): Promise<void> {
    if (this.next) return this.next;
    if (!this.running) return this.start();
    this.next = this.running.then(() => {
      this.next = undefined;
      return this.start();
    });
    return this.next;
  }

  /** Starts a computation; its callers see its failure, `running` only that it ended. */
  private start(): Promise<void> {
    const run = this.compute(this.names, Object.fromEntries(this.kept)).then((digests) => {
      for (const [name, digest] of Object.entries(digests)) {
        const kept = this.kept.get(name);
        if (!kept || kept.position <= digest.position) this.kept.set(name, digest);
      }
    });
    const ended: Promise<void> = run.then(
      () => undefined,
      () => undefined,
    ).then(() => {
      if (this.running === ended) this.running = undefined;
    });
    this.running = ended;
    return run;
  }
}
