/**
 * The auditors' queries: GET /api/v1/events (the global log, a page at a time) and GET /api/v1/projections
 * (each read model's checkpoint and digest, to compare with a replay).
 */
import type { StoredEvent } from '../../store/types.js';
import type { ProjectionsStatus } from '../../../generated/orderbook/projections-status.js';
import type { Book } from '../book.js';
import { readInTurns } from '../../../shared/next-turn.js';

/** Events of GET /api/v1/events read in one turn of the event loop (a page takes several). */
export const EVENTS_PER_TURN = 100;

/** GET /api/v1/events: `limit` events after a position, EVENTS_PER_TURN at a time with a turn of the event loop between. */
export async function readLog(book: Pick<Book, 'events'>, after: number, limit: number): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  await readInTurns(limit, EVENTS_PER_TURN, async (wanted) => {
    const read = await book.events.readAll(events.at(-1)?.position ?? after, wanted);
    events.push(...read);
    return read.length;
  });
  return events;
}

/** GET /api/v1/projections. */
export async function projectionsStatus(book: Pick<Book, 'events' | 'runner' | 'readModels' | 'digests'>): Promise<ProjectionsStatus> {
  const result: ProjectionsStatus = { head: await book.events.head(), projections: {} };
  for (const projection of book.runner.projections) {
    // A digest reads every document: kept while the read model has not moved, computed off the event loop.
    const position = await book.readModels.checkpoint(projection.name);
    result.projections[projection.name] = { version: projection.version, ...(await book.digests.digest(projection.name, position)) };
  }
  return result;
}
