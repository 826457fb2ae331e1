/**
 * Starting the order book inside the service: the event store and its read models, the projection runner,
 * the chain (the order book network the service gives it: chain/port.ts), the indexer, and the HTTP API.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../generated/config.js';
import type { Logger } from '../shared/logger.js';
import type { OrderbookNetwork } from './chain/port.js';
import { openEventStore, quoteStoreFor, type OpenedEventStore } from './store/index.js';
import { readModelStoreFor } from './read/models/index.js';
import { ProjectionRunner } from './read/runner.js';
import { projections } from './read/projections/index.js';
import { composeBook, type Book } from './usecases/book.js';
import { projectionsStatus } from './usecases/queries/audit.js';
import { digestsInWorker } from './read/digest-cache.js';
import { openChain, type LiveChain } from './chain/live.js';
import { Indexer } from './chain/indexer.js';
import { indexerStateFor } from './chain/indexer-state.js';
import { createOrderbookApi } from './api/app.js';
import { solvableEncoding } from './api/encoding/solvable.js';
import { ValidationPool } from './write/validation/pool.js';
import { LogFeed } from './live/log-feed.js';
import { SolverViewWatch, solverViews } from './live/solver-stream.js';
import { ReplayVerifier } from './live/verify-replay.js';
import { startNatsFanOut } from './live/nats.js';
import { StreamAdmission } from './api/stream-admission.js';
import { Readiness } from './live/readiness.js';
import { performance } from 'node:perf_hooks';

/** Orders and cancellations are a few kilobytes; EIP-1271 signatures may be longer, never this long. */
const MAX_BODY_BYTES = 64 * 1024;

export interface RunningOrderbook {
  book: Book;
  events: OpenedEventStore;
  runner: ProjectionRunner;
  chain: LiveChain;
  indexer: Indexer;
  /** The log's tail, shared by this instance's live readers (event streams, NATS). */
  feed: LogFeed;
  handler(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /**
   * From what the instance holds (no query): ready while every read model was level with the log's head
   * within READY_MAX_LAG_MS (live/readiness.ts). `indexer` says whether this instance indexes the chain
   * (with PostgreSQL only one does) and the last block it processed.
   */
  health(): { ready: boolean; head: number; projections: number; indexer: { leading: boolean; block: number | null } };
  stop(): Promise<void>;
}

export async function startOrderbook(config: Config, network: OrderbookNetwork, logger: Logger): Promise<RunningOrderbook> {
  const log = logger.child({ component: 'orderbook' });
  const storeOptions = { dataDir: config.dataDir, databaseUrl: config.databaseUrl, pgSchema: config.databaseSchema };
  const events = await openEventStore(storeOptions);
  if (events.kind === 'postgres') await events.listening();
  const readModels = readModelStoreFor(events);
  const runner = new ProjectionRunner(events, readModels, projections, log, { waitMs: config.orderbook.readModelsWaitMs });
  let chain: LiveChain | undefined;
  let validator: ValidationPool | undefined;
  const feed = new LogFeed(events);
  let nats: { stop(): Promise<void> } | undefined;
  try {
    await runner.start();
    chain = await openChain({ network, config: config.orderbook, logger: log }).catch((err: Error) => {
      throw new Error(
        `order book on ${network.name}: ${err.message} (set SETTLEMENT_CONTRACT, or ORDERBOOK=off for a gateway only)`,
        { cause: err },
      );
    });
    validator = new ValidationPool();
    const book = composeBook({ events, quoteStore: quoteStoreFor(events, { maxLive: config.orderbook.quoteMaxLive }), readModels, runner, chain, validator, config: config.orderbook, digests: digestsInWorker(storeOptions), solvableEncoding });
    await book.solvable.start();
    const indexer = new Indexer({
      rpc: chain.rpc,
      settlement: chain.settlement,
      events,
      state: indexerStateFor(events),
      logger: log,
      startBlock: network.devChain ? 0 : config.orderbook.indexerStartBlock,
      heads: network.heads,
    });
    indexer.start();
    await feed.start();
    const readiness = new Readiness(config.orderbook.readyMaxLagMs);
    // Seen at every step of the read models, so that a moment level between two health probes counts.
    runner.on('advanced', () => readiness.observe(runner.position, feed.head, performance.now()));
    if (config.orderbook.natsUrl) {
      nats = startNatsFanOut({ url: config.orderbook.natsUrl, stream: config.orderbook.natsStream, feed, logger: log });
    }
    const watch = new SolverViewWatch(solverViews(book), runner);
    const app = createOrderbookApi(book, {
      maxBodyBytes: MAX_BODY_BYTES,
      maxJsonDepth: config.maxJsonDepth,
      replayCooldownSeconds: config.orderbook.replayCooldownSeconds,
      gates: {
        list: { concurrency: config.orderbook.listingConcurrency, queue: config.orderbook.listingQueue },
        quote: { concurrency: config.orderbook.quoteConcurrency, queue: config.orderbook.quoteQueue },
      },
      live: {
        feed,
        solverViews: watch,
        replay: new ReplayVerifier(() => projectionsStatus(book), storeOptions),
        limits: {
          heartbeatMs: config.orderbook.streamHeartbeatMs,
          maxBufferedBytes: config.orderbook.streamMaxBufferedBytes,
          stallMs: config.orderbook.streamStallMs,
          catchUpChunkBytes: config.orderbook.streamCatchUpChunkBytes,
        },
        admission: new StreamAdmission({ perClient: config.orderbook.streamMaxPerClient, total: config.orderbook.streamMaxConnections }),
      },
    });
    const live = chain;
    const workers = validator;
    return {
      book,
      events,
      runner,
      chain: live,
      indexer,
      feed,
      handler: app.callback(),
      health() {
        const head = feed.head;
        return {
          ready: readiness.ready(runner.position, head, performance.now()),
          head,
          projections: runner.position,
          indexer: { leading: indexer.leading, block: indexer.indexedBlock },
        };
      },
      async stop() {
        watch.stop();
        await nats?.stop();
        feed.stop();
        await indexer.stop();
        live.stop();
        await workers.close();
        await runner.stop();
        await events.close();
      },
    };
  } catch (err) {
    await nats?.stop();
    feed.stop();
    chain?.stop();
    await validator?.close();
    await runner.stop();
    await events.close();
    throw err;
  }
}
