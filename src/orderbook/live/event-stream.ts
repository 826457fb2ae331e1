/**
 * GET /api/v1/events/stream: the event log as Server-Sent Events, each with `id: <position>` and as data
 * the item GET /api/v1/events gives for that position. Resumable: from the Last-Event-ID header, else
 * ?after=, else from now (parsed by the API, api/params.ts); filtered by owner, orderUid and type. Catch-up goes at the client's pace (the
 * writer waits for it to read, holding one buffer of frames meanwhile); once live, a client that falls behind
 * by the bound is cut off, and in either a client that reads nothing for the stall bound is (sse.ts).
 */
import type { StoredEvent } from '../store/types.js';
import type { LogFeed } from './log-feed.js';
import { sseFrame, type SseLimits, type SseResponse } from './sse.js';
import { logger } from '../../shared/logger.js';
import { Turns } from './turns.js';

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

/**
 * An event's frame, made once however many live readers send it (the feed hands all of them the same
 * objects): a stream client costs a write per event, not a serialization.
 */
const frames = new WeakMap<StoredEvent, Buffer>();
function frameOf(event: StoredEvent): Buffer {
  let frame = frames.get(event);
  if (!frame) {
    frame = Buffer.from(sseFrame({ id: event.position, data: JSON.stringify(event) }));
    frames.set(event, frame);
  }
  return frame;
}

/** The first catch-up page's size, before the stream knows how many bytes an event of its log makes. */
const FIRST_PAGE = 64;

/**
 * Catch-up pages made at once across all streams (turns.ts): a page is a read and a buffer of frames, about
 * a millisecond of main-thread work, so that other requests wait for at most a couple of them.
 */
const catchUpTurns = new Turns(2);

/**
 * Streams the events `request` asks for (the API parsed it: api/params.ts parseStreamRequest) to `sse`, the
 * response the API opened once the client was given a place (api/streams.ts).
 *
 * Catch-up holds bytes, not parsed pages: each page read from the store is turned into one buffer of
 * frames at once (the parsed events are then garbage), written, and the next page is read only once the
 * client has read that buffer; pages of all streams take turns (two at a time), so that many catch-ups
 * do not hold other requests back. Pages are sized so that a buffer is about `catchUpChunkBytes` (from the
 * bytes per event read so far), so a client that stops reading holds about that much, until the stall
 * bound cuts it off (sse.ts).
 */
export async function streamEvents(sse: SseResponse, request: StreamRequest, feed: LogFeed, limits: SseLimits): Promise<void> {
  let sent = request.after ?? feed.position;

  // Writes the events after `sent` that pass the filter; false once the client is gone or cut off.
  const live = (events: StoredEvent[]) => {
    for (const event of events) {
      if (event.position <= sent) continue;
      sent = event.position;
      if (!matches(request.filter, event)) continue;
      if (!sse.write(frameOf(event), event.position)) return feed.leave(live);
    }
  };
  sse.onClose(() => feed.leave(live));

  let eventsRead = 0;
  let bytesMade = 0;
  // No frame made yet from events read: the filter passes few of them, and pages may be as large as the feed's.
  const pageSize = () =>
    eventsRead === 0 ? FIRST_PAGE : bytesMade === 0 ? Number.MAX_SAFE_INTEGER : limits.catchUpChunkBytes / (bytesMade / eventsRead);
  const catchUpPage = (events: StoredEvent[]): boolean => {
    const parts: string[] = [];
    let lastId: number | undefined;
    for (const event of events) {
      if (event.position <= sent) continue;
      sent = event.position;
      eventsRead++;
      if (!matches(request.filter, event)) continue;
      const frame = sseFrame({ id: event.position, data: JSON.stringify(event) });
      bytesMade += frame.length;
      parts.push(frame);
      lastId = event.position;
    }
    if (parts.length === 0) return sse.isOpen;
    return sse.write(Buffer.from(parts.join('')), lastId);
  };
  // The next page is read once the client has read the previous one (or the stall bound cut it off).
  const ready = async () => {
    await sse.drained();
    return sse.isOpen;
  };
  try {
    const joined = await feed.catchUp(sent, catchUpPage, live, { pageSize, ready, turns: catchUpTurns });
    if (!joined || !sse.isOpen) feed.leave(live);
  } catch (err) {
    // The headers are gone: the client learns of it by the stream ending, and resumes from its last id.
    log.warn({ err }, 'an event stream failed while catching up');
    feed.leave(live);
    sse.end();
  }
}
