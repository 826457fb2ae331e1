/**
 * GET /api/v1/events/stream: the event log as Server-Sent Events, each with `id: <position>` and as data
 * the item GET /api/v1/events gives for that position. Resumable: from the Last-Event-ID header, else
 * ?after=, else from now (parsed by the API, api/params.ts); filtered by owner, orderUid and type. Catch-up goes at the client's pace (the
 * writer waits for it to read); once live, a client that falls behind by the bound is cut off (sse.ts).
 */
import type { Context } from 'koa';
import type { StoredEvent } from '../store/types.js';
import type { LogFeed } from './log-feed.js';
import { SseResponse, sseFrame, type SseLimits } from './sse.js';
import { logger } from '../../shared/logger.js';

const log = logger.child({ component: 'event-stream' });

export interface StreamFilter {
  /** Lowercase, without 0x: compared with the owner bytes of each event's order UID. */
  ownerHex?: string;
  orderUid?: string;
  types?: Set<string>;
}

export interface StreamRequest {
  /** Events with a greater position are sent; undefined: from the head at connection. */
  after?: number;
  filter: StreamFilter;
}

/** Every order event carries its order's UID, whose bytes 32..51 are the owner. */
export function matches(filter: StreamFilter, event: StoredEvent): boolean {
  if (filter.types && !filter.types.has(event.type)) return false;
  if (!filter.ownerHex && !filter.orderUid) return true;
  const uid = (event.data as { uid?: unknown }).uid;
  if (typeof uid !== 'string') return false;
  if (filter.orderUid && uid.toLowerCase() !== filter.orderUid) return false;
  return !filter.ownerHex || uid.slice(66, 106).toLowerCase() === filter.ownerHex;
}

/** Streams the events `request` asks for (the API parsed it: api/params.ts parseStreamRequest). */
export async function serveEventStream(ctx: Context, request: StreamRequest, feed: LogFeed, limits: SseLimits): Promise<void> {
  // The response is written here, not by koa (and is not a 404 for the error middleware).
  ctx.status = 200;
  ctx.respond = false;
  const sse = new SseResponse(ctx.res, limits);
  let sent = request.after ?? feed.position;

  // Writes the events after `sent` that pass the filter; false once the client is gone or cut off.
  const send = (events: StoredEvent[]): boolean => {
    for (const event of events) {
      if (event.position <= sent) continue;
      sent = event.position;
      if (!matches(request.filter, event)) continue;
      if (!sse.write(sseFrame({ id: event.position, data: JSON.stringify(event) }), event.position)) return false;
    }
    return true;
  };
  const live = (events: StoredEvent[]) => {
    if (!send(events)) feed.leave(live);
  };
  sse.onClose(() => feed.leave(live));
  try {
    const joined = await feed.catchUp(
      sent,
      async (events) => {
        for (const event of events) {
          if (!send([event])) return false;
          await sse.drained();
        }
        return sse.isOpen;
      },
      live,
    );
    if (!joined || !sse.isOpen) feed.leave(live);
  } catch (err) {
    // The headers are gone: the client learns of it by the stream ending, and resumes from its last id.
    log.warn({ err }, 'an event stream failed while catching up');
    feed.leave(live);
    sse.end();
  }
}
