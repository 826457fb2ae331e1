/**
 * Fan-out of the event log to NATS JetStream (NATS_URL): each event is published once, in position order,
 * on `<stream>.<event type>`, with its position as the Nats-Msg-Id so that JetStream drops a duplicate (an
 * event published again after a crash, or by a second instance on the same database). At start, and after
 * a failure, publishing resumes after the position of the stream's last message.
 */
import { connect, nanos, type JetStreamClient, type JetStreamManager, type NatsConnection } from 'nats';
import type { StoredEvent } from '../store/types.js';
import type { Logger } from '../../shared/logger.js';
import type { LogFeed } from './log-feed.js';

export interface NatsPublisherOptions {
  url: string;
  /** Stream name and subject prefix. */
  stream?: string;
  feed: LogFeed;
  logger: Logger;
}

const DEFAULT_STREAM = 'ethgate_events';
/** Publishes in flight at once; JetStream keeps one connection's messages in order. */
const WINDOW = 256;
const RETRY_MS = 1000;
/** Long enough for a crashed instance to restart and for two instances to publish the same events. */
const DUPLICATE_WINDOW_MS = 10 * 60_000;

/**
 * Runs a publisher in the background: NATS being down (at start or later) never keeps the order book from
 * serving; connecting is retried every second until it works or stop() is called.
 */
export function startNatsFanOut(options: NatsPublisherOptions): { stop(): Promise<void> } {
  const log = options.logger.child({ component: 'nats' });
  let publisher: NatsPublisher | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const attempt = () => {
    NatsPublisher.start(options).then(
      async (started) => {
        if (stopped) await started.stop();
        else publisher = started;
      },
      (err: unknown) => {
        if (stopped) return;
        log.warn({ err: (err as Error).message, url: options.url }, `cannot publish to NATS; trying again in ${RETRY_MS} ms`);
        timer = setTimeout(attempt, RETRY_MS);
        timer.unref();
      },
    );
  };
  attempt();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await publisher?.stop();
    },
  };
}

export class NatsPublisher {
  /** Positions up to here are in the stream. */
  private published = 0;
  /** Positions up to here are queued or published. */
  private queued = 0;
  private readonly queue: StoredEvent[] = [];
  private draining: Promise<void> | undefined;
  /** Publishing failed: the queue is dropped until resume() starts over from the stream's last position. */
  private failed = false;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  private readonly onEvents = (events: StoredEvent[]) => this.enqueue(events);

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    private readonly feed: LogFeed,
    private readonly log: Logger,
  ) {}

  static async start(options: NatsPublisherOptions): Promise<NatsPublisher> {
    const stream = options.stream ?? DEFAULT_STREAM;
    const nc = await connect({ servers: options.url, name: 'ethgate', maxReconnectAttempts: -1 });
    try {
      const jsm = await nc.jetstreamManager();
      const publisher = new NatsPublisher(nc, nc.jetstream(), jsm, stream, options.feed, options.logger.child({ component: 'nats' }));
      await publisher.ensureStream();
      await publisher.resume();
      return publisher;
    } catch (err) {
      await nc.close().catch(() => undefined);
      throw err;
    }
  }

  /** The last position JetStream holds. */
  get position(): number {
    return this.published;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    this.feed.leave(this.onEvents);
    await this.nc.drain().catch(() => undefined);
  }

  private async ensureStream(): Promise<void> {
    try {
      await this.jsm.streams.info(this.stream);
    } catch {
      await this.jsm.streams.add({
        name: this.stream,
        subjects: [`${this.stream}.>`],
        duplicate_window: nanos(DUPLICATE_WINDOW_MS),
      });
    }
  }

  /** Position of the stream's last message (its Nats-Msg-Id), 0 when empty. */
  private async lastPublished(): Promise<number> {
    const info = await this.jsm.streams.info(this.stream);
    if (info.state.messages === 0) return 0;
    const last = await this.jsm.streams.getMessage(this.stream, { seq: info.state.last_seq });
    const id = Number(last.header?.get('Nats-Msg-Id'));
    if (!Number.isSafeInteger(id)) throw new Error(`the last message of stream ${this.stream} has no position as Nats-Msg-Id`);
    return id;
  }

  /** Publishes from the stream's last position on, then follows the feed. */
  private async resume(): Promise<void> {
    this.failed = false;
    this.published = this.queued = await this.lastPublished();
    this.log.info({ stream: this.stream, after: this.published }, 'publishing events to NATS JetStream');
    await this.feed.catchUp(
      this.published,
      async (events) => {
        this.enqueue(events);
        while (this.draining) await this.draining;
        return !this.stopped && !this.failed;
      },
      this.onEvents,
    );
    if (this.failed) this.feed.leave(this.onEvents);
  }

  private enqueue(events: StoredEvent[]): void {
    if (this.failed) return;
    for (const event of events) {
      if (event.position <= this.queued) continue;
      this.queue.push(event);
      this.queued = event.position;
    }
    this.kick();
  }

  /** Starts draining the queue unless a drain runs; one that ends leaves nothing queued behind. */
  private kick(): void {
    if (this.draining || this.failed || this.stopped) return;
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      if (this.queue.length > 0) this.kick();
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0 && !this.stopped) {
        const batch = this.queue.slice(0, WINDOW);
        await Promise.all(batch.map((e) => this.js.publish(`${this.stream}.${e.type}`, JSON.stringify(e), { msgID: String(e.position) })));
        this.queue.splice(0, batch.length);
        this.published = batch[batch.length - 1].position;
      }
    } catch (err) {
      if (this.stopped) return;
      // Start over from what the stream holds: a message that did get in is dropped as a duplicate.
      this.log.warn({ err }, `publishing to NATS failed; resuming in ${RETRY_MS} ms`);
      this.failed = true;
      this.feed.leave(this.onEvents);
      this.queue.length = 0;
      this.scheduleResume();
    }
  }

  private scheduleResume(): void {
    if (this.stopped) return;
    this.retry = setTimeout(() => {
      this.resume().catch((err: unknown) => {
        this.log.warn({ err }, `resuming NATS publishing failed; trying again in ${RETRY_MS} ms`);
        this.failed = true;
        this.feed.leave(this.onEvents);
        this.scheduleResume();
      });
    }, RETRY_MS);
    this.retry.unref();
  }
}
