/**
 * The order book as a part of the service that may be down while the gateway serves: it is started in the
 * background, and when it cannot start (no settlement contract at the address, database unreachable, ...)
 * its requests (/api/v1/*) are answered 503 and /healthz names it as down, neither saying why; the reason is
 * kept for /status (the operator's) and the logs, and it is tried again with backoff until it comes up or the
 * service stops. The gateway never waits for it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../generated/config.js';
import type { Logger } from '../shared/logger.js';
import type { OrderbookNetwork } from './chain/port.js';
import { startOrderbook, type RunningOrderbook } from './index.js';

import type { OrderbookStatus } from '../generated/status.js';

export type { OrderbookStatus };
export type OrderbookState = OrderbookStatus['state'];

export interface SupervisorOptions {
  /** First wait before trying again; doubles up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
  /** How to start it (tests may pass their own); startOrderbook by default. */
  start?: (config: Config, network: OrderbookNetwork, logger: Logger) => Promise<RunningOrderbook>;
}

export class OrderbookSupervisor {
  state: OrderbookState = 'starting';
  /** Why it is not up (the last start failure). */
  reason: string | undefined = 'the order book is starting';
  running: RunningOrderbook | undefined;
  private readonly stopped = new AbortController();
  private loop: Promise<void> | undefined;
  private attempts = 0;
  private settle!: () => void;
  private readonly settled = new Promise<void>((resolve) => (this.settle = resolve));

  constructor(
    private readonly config: Config,
    private readonly network: OrderbookNetwork,
    private readonly logger: Logger,
    private readonly options: SupervisorOptions = {},
  ) {}

  /** Starts trying in the background; resolves at once. */
  start(): void {
    this.loop ??= this.run();
  }

  /** Resolves once the first attempt ended (up or down) or the supervisor stopped. */
  untilSettled(): Promise<void> {
    return this.settled;
  }

  status(): OrderbookStatus {
    const indexer = this.running?.indexer;
    return {
      state: this.state,
      ...(this.state === 'up' ? {} : { reason: this.reason ?? 'unknown' }),
      indexerBlock: indexer?.indexedBlock ?? null,
      role: indexer ? (indexer.leading ? 'leader' : 'follower') : null,
    };
  }

  async stop(): Promise<void> {
    this.stopped.abort();
    this.settle();
    await this.loop;
    await this.running?.stop();
    this.running = undefined;
  }

  private async run(): Promise<void> {
    const log = this.logger.child({ component: 'orderbook-supervisor' });
    const first = this.options.retryMs ?? 2_000;
    const max = this.options.maxRetryMs ?? 10_000;
    const start = this.options.start ?? startOrderbook;
    while (!this.stopped.signal.aborted) {
      this.attempts++;
      try {
        const running = await start(this.config, this.network, this.logger);
        if (this.stopped.signal.aborted) {
          await running.stop();
          return;
        }
        this.running = running;
        this.state = 'up';
        this.reason = undefined;
        this.settle();
        if (this.attempts > 1) log.info({ attempts: this.attempts }, 'order book up');
        return;
      } catch (err) {
        const wait = Math.min(max, first * 2 ** Math.min(this.attempts - 1, 10));
        this.state = 'down';
        this.reason = (err as Error).message;
        this.settle();
        log.error({ err: this.reason, retryInMs: wait }, 'order book could not start; the gateway serves on, retrying');
        try {
          await sleep(wait, undefined, { signal: this.stopped.signal });
        } catch {
          return;
        }
      }
    }
  }
}
