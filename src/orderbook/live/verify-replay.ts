/**
 * POST /api/v1/projections/replay: the explorer's "verify by replay". The read models are rebuilt in memory
 * from the log on a worker thread (what `npm run replay` does) up to the position the live ones are at,
 * and the digests are compared. One replay runs at a time: concurrent requests share its answer.
 */
import type { EventStoreOptions } from '../store/index.js';
import type { ReplayVerification } from '../../generated/orderbook/replay-verification.js';
import type { ProjectionsStatus } from '../../generated/orderbook/projections-status.js';
import { replayOrderbook } from '../read/replay.js';
import { orderbookErrors } from '../domain/errors.js';

/** Tries to find a moment when every live read model is at the same position. */
const ATTEMPTS = 20;

export class ReplayVerifier {
  private running: Promise<ReplayVerification> | undefined;

  constructor(
    /** The live read models' checkpoints and digests (GET /api/v1/projections). */
    private readonly liveStatus: () => Promise<ProjectionsStatus>,
    private readonly store: EventStoreOptions,
  ) {}

  verify(): Promise<ReplayVerification> {
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async run(): Promise<ReplayVerification> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const live = await this.liveStatus();
      const positions = new Set(Object.values(live.projections).map((p) => p.position));
      if (positions.size > 1) {
        // A read model is between two appends: look again in a moment.
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      const position = positions.size === 1 ? [...positions][0] : live.head;
      const replayed = await replayOrderbook({ store: this.store, to: position, workers: 1 });
      const projections: ReplayVerification['projections'] = {};
      for (const [name, { position: at, documents, sha256 }] of Object.entries(live.projections)) {
        const replay = replayed.digests[name];
        const liveDigest = { position: at, documents, sha256 };
        projections[name] = { live: liveDigest, replay, matches: !!replay && replay.sha256 === sha256 && replay.documents === documents };
      }
      return {
        position,
        events: replayed.events,
        seconds: Math.round(replayed.seconds * 1000) / 1000,
        matches: Object.values(projections).every((p) => p.matches),
        projections,
      };
    }
    throw orderbookErrors.unsettled('the read models kept moving during the replay; try again');
  }
}
