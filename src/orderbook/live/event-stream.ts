/**
 * GET /api/v1/events/stream: the event log as Server-Sent Events, each with `id: <position>` and as data
 * the item GET /api/v1/events gives for that position. Resumable: from the Last-Event-ID header, else
 * ?after=, else from now; filtered by owner, orderUid and type. Catch-up goes at the client's pace (the
 * writer waits for it to read); once live, a client that falls behind by the bound is cut off (sse.ts).
 */
import type { Context } from 'koa';
import type { StoredEvent } from '../store/types.js';
import type { EventStreamQuery } from '../../generated/orderbook/queries/event-stream-query.js';
import { validator } from '../../schemas.js';
import { orderbookErrors } from '../domain/errors.js';
import { singleQuery } from '../api/params.js';
import type { LogFeed } from './log-feed.js';
import { SseResponse, sseFrame, type SseLimits } from './sse.js';
import { logger } from '../../logger.js';

const log = logger.child({ component: 'event-stream' });

const streamQuery = validator<EventStreamQuery>('orderbook/queries/event-stream-query.schema.json');

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

const POSITION = /^[0-9]{1,15}$/;

/** The query and Last-Event-ID of a stream request, or the 400 saying what is wrong. */
export function parseStreamRequest(query: Context['query'], lastEventId: string | undefined): StreamRequest {
  const q = singleQuery(query);
  if (!streamQuery(q)) throw orderbookErrors.fromSchema(streamQuery.errors, 'query');
  if (lastEventId !== undefined && !POSITION.test(lastEventId.trim())) {
    throw orderbookErrors.invalidOrderData(`Last-Event-ID must be an event position (a non-negative integer), got "${lastEventId.slice(0, 40)}"`);
  }
  const from = lastEventId !== undefined ? lastEventId.trim() : q.after;
  return {
    after: from === undefined ? undefined : Number(from),
    filter: {
      ownerHex: q.owner?.slice(2).toLowerCase(),
      orderUid: q.orderUid?.toLowerCase(),
      types: q.type ? new Set(q.type.split(',')) : undefined,
    },
  };
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

export async function serveEventStream(ctx: Context, feed: LogFeed, limits: SseLimits): Promise<void> {
  const request = parseStreamRequest(ctx.query, ctx.get('Last-Event-ID') || undefined);
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
