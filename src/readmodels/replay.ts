/**
 * Rebuilding read models from position 0 into a fresh store, as an auditor does (npm run replay): the log
 * is read once, a page at a time, and each page is applied to every projection with the same `apply`
 * functions the live service uses. The digests can then be compared with GET /api/v1/projections.
 */
import type { EventStore, StoredEvent } from '../eventstore/types.js';
import type { Projection, ReadModelStore } from './types.js';
import { digestReadModel, type Digest } from './digest.js';

export interface ReplayResult {
  events: number;
  seconds: number;
  /** Up to which position the log was replayed. */
  position: number;
  digests: Record<string, Digest>;
}

const PAGE = 10_000;

export async function replay(
  log: EventStore,
  target: ReadModelStore,
  projections: Projection<any>[],
  to?: number,
): Promise<ReplayResult> {
  const end = to ?? (await log.head());
  for (const projection of projections) await target.prepare(projection);
  const started = process.hrtime.bigint();
  let after = 0;
  let events = 0;
  while (after < end) {
    const page = (await log.readAll(after, PAGE)).filter((e) => e.position <= end);
    if (page.length === 0) break;
    const source = async (from: number): Promise<StoredEvent[]> => page.filter((e) => e.position > from);
    await target.step(projections, source);
    after = page[page.length - 1].position;
    events += page.length;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const digests: Record<string, Digest> = {};
  for (const projection of projections) digests[projection.name] = await digestReadModel(target, projection.name);
  return { events, seconds, position: after, digests };
}
