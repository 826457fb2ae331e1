/**
 * Rebuilding read models from position 0 into a fresh store, as an auditor does (npm run replay): the log
 * is read once, a page at a time, and each page is applied to every projection with the same `apply`
 * functions the live service uses. The digests can then be compared with GET /api/v1/projections.
 */
import type { EventStore } from '../store/types.js';
import type { Projection, ReadModelStore } from './models/types.js';
import { digestReadModel, type Digest } from './digest.js';
import { eventsAfter } from './models/fold.js';

export interface ReplayResult {
  events: number;
  seconds: number;
  /** Up to which position the log was replayed. */
  position: number;
  digests: Record<string, Digest>;
}

/**
 * Folds the log from position 0 up to `to` into `target`'s prepared read models, `page` events at a time;
 * gives how many events it read and the position it reached.
 */
async function foldLog(
  log: EventStore,
  target: ReadModelStore,
  projections: Projection<any>[],
  to: number,
  options: { page: number },
): Promise<{ events: number; position: number }> {
  let after = 0;
  let events = 0;
  while (after < to) {
    const page = (await log.readAll(after, options.page)).filter((e) => e.position <= to);
    if (page.length === 0) break;
    await target.step(projections, async (from) => eventsAfter(page, from));
    after = page[page.length - 1].position;
    events += page.length;
  }
  return { events, position: after };
}

export async function replay(
  log: EventStore,
  target: ReadModelStore,
  projections: Projection<any>[],
  to?: number,
): Promise<ReplayResult> {
  const end = to ?? (await log.head());
  for (const projection of projections) await target.prepare(projection);
  const started = process.hrtime.bigint();
  const { events, position } = await foldLog(log, target, projections, end, { page: 10_000 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const digests: Record<string, Digest> = {};
  for (const projection of projections) digests[projection.name] = await digestReadModel(target, projection.name);
  return { events, seconds, position, digests };
}
