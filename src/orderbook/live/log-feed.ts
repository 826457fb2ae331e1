/**
 * The tail of the event log, read once per instance for all of its live readers (stream clients, the NATS
 * publisher). The store says when its head moves (on PostgreSQL also for appends by other instances, via
 * NOTIFY); the feed then reads the new events in pages and hands each page to every reader at once, so
 * that one client's stream costs no query of its own once it is live.
 *
 * A reader first catches up from its own position by reading the store itself (catchUp), then joins the
 * feed; join() only accepts a reader that has reached the feed's position, so nothing falls in between.
 * Pages may overlap what a reader already had (it read ahead of the feed): readers skip positions they sent.
 */
import type { EventStore, StoredEvent } from '../store/types.js';
import { logger } from '../../shared/logger.js';
import type { Turns } from './turns.js';

export type FeedListener = (events: StoredEvent[]) => void;

export interface CatchUpOptions {
  pageSize?: () => number;
  ready?: () => Promise<boolean>;
  turns?: Turns;
}

const PAGE = 1000;
const RETRY_MS = 1000;
const log = logger.child({ component: 'log-feed' });

export class LogFeed {
  /** Every event up to here was handed to the readers joined at the time (or nobody was listening). */
  private delivered = 0;
  /** The newest head the store told of. */
  private target = 0;
  private pulling = false;
  private readonly listeners = new Set<FeedListener>();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly store: EventStore) {}

  async start(): Promise<void> {
    this.delivered = this.target = await this.store.head();
    this.unsubscribe = this.store.subscribe((head) => {
      if (head > this.target) this.target = head;
      void this.pull();
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.listeners.clear();
  }

  /** Readers joined now. */
  get readers(): number {
    return this.listeners.size;
  }

  /** The newest head of the log the store told of (the log's head, as far as this instance knows). */
  get head(): number {
    return this.target;
  }

  /** The position a reader must have reached to join. */
  get position(): number {
    return this.delivered;
  }

  /** Adds a reader that has every event up to `position`; false (not joined) when it is behind. */
  join(listener: FeedListener, position: number): boolean {
    if (position < this.delivered) return false;
    this.listeners.add(listener);
    return true;
  }

  leave(listener: FeedListener): void {
    this.listeners.delete(listener);
  }

  /**
   * Reads the store from `after` to the feed's position for one reader, a page at a time, calling `page`
   * with each page (awaited: the reader may wait for its client), then joins it. Resolves with false when
   * `page` gave false (the reader is gone). Options: `pageSize`, how many events the next page may hold
   * (at most PAGE), so that a reader can bound what one page costs it; `ready`, awaited before each page is
   * read (the reader waits for its client there, false: it is gone); `turns`, whose turn each page's read
   * and `page` take, so that many readers share the main thread fairly (ready is awaited outside a turn).
   */
  async catchUp(
    after: number,
    page: (events: StoredEvent[]) => boolean | Promise<boolean>,
    listener: FeedListener,
    options: CatchUpOptions = {},
  ): Promise<boolean> {
    const { pageSize = () => PAGE, ready, turns } = options;
    let cursor = after;
    while (cursor < this.delivered) {
      if (ready && !(await ready())) return false;
      const release = turns ? await turns.take() : undefined;
      try {
        const events = await this.store.readAll(cursor, Math.max(1, Math.min(PAGE, Math.floor(pageSize()))));
        if (events.length === 0) break;
        cursor = events[events.length - 1].position;
        if (!(await page(events))) return false;
      } finally {
        release?.();
      }
    }
    // No await between the check above and this join: the feed cannot move in between.
    if (!this.join(listener, cursor)) return this.catchUp(cursor, page, listener, options);
    return true;
  }

  private async pull(): Promise<void> {
    if (this.pulling) return;
    this.pulling = true;
    try {
      while (this.delivered < this.target) {
        if (this.listeners.size === 0) {
          // Nobody to hand events to: a reader joining later catches up from the store itself.
          this.delivered = this.target;
          break;
        }
        const events = await this.store.readAll(this.delivered, PAGE);
        if (events.length === 0) break;
        this.delivered = events[events.length - 1].position;
        for (const listener of [...this.listeners]) {
          try {
            listener(events);
          } catch (err) {
            log.error({ err }, 'a log feed reader threw');
          }
        }
      }
    } catch (err) {
      log.warn({ err }, `reading new events failed; trying again in ${RETRY_MS} ms`);
      if (this.unsubscribe) setTimeout(() => void this.pull(), RETRY_MS).unref();
    } finally {
      this.pulling = false;
    }
  }
}
