/**
 * One head tracker per network, across all its upstreams: the single source of the network's head for the
 * gateway (eth_blockNumber floor, cache finality, GET /status), its subscriptions and the order book.
 *
 * - Each upstream reports its heads: a `newHeads` subscription where it speaks WebSocket, a poll of its
 *   latest block every `pollIntervalMs` where it does not (and while its WebSocket is down).
 * - Reports are handled one at a time. A block that does not link to the remembered chain is walked back
 *   by parent hash (asking the upstream that reported it, else any) until it links: that fills a gap left
 *   by an upstream that failed, and finds the fork point of a reorganisation, including one that no node
 *   announced (anvil's evm_revert). A lagging upstream's older blocks are on the chain already: no change.
 * - A block at or below the head with another hash is taken as a reorganisation only when the upstream
 *   reporting it had reported that height or higher before (its own chain changed), not from a node that is
 *   merely behind on another branch. A chain that only became shorter (an older block of the same chain as
 *   the head) is taken once no other upstream still reports the old tip.
 * - Listeners get each change in order: blocks removed (newest first), then blocks added (in order).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../shared/logger.js';
import type { RpcOutcome } from '../jsonrpc.js';
import type { UpstreamCall, UpstreamTransport } from '../upstream/types.js';
import { WsUpstream } from '../upstream/ws.js';
import { metrics } from '../metrics.js';
import { RecentChain, toTrackedBlock, type HeadChange, type TrackedBlock } from './chain.js';

/** The head as the order book and other consumers see it (see HeadSource). */
export interface Head {
  number: number;
  hash: string;
}

/** What consumers outside the gateway (the order book) use: the newest block, and a call on each change. */
export interface HeadSource {
  readonly latest: Head | undefined;
  onBlock(listener: (head: Head) => void): () => void;
}

export interface TrackerOptions {
  network: string;
  pollIntervalMs: number;
  logger: Logger;
  /** Any-upstream calls with failover (the pool), for blocks the reporting upstream cannot give. */
  send(call: UpstreamCall): Promise<RpcOutcome>;
  /** Most blocks filled in after a gap; a wider gap restarts the chain at the new head. */
  maxBackfill?: number;
}

/** How long start() waits for the first reports, and close() for unsubscriptions: a hanging upstream must not hold up the service. */
const START_WAIT_MS = 2_000;
const CLOSE_WAIT_MS = 1_000;

interface Source {
  name: string;
  transport: UpstreamTransport;
  /** Highest block number it reported, and its hash. */
  head: number | undefined;
  seenAt: number;
  /** Subscribed, or its last poll answered: its head is current. */
  live: boolean;
  timer: NodeJS.Timeout | undefined;
  subscribed: boolean;
  /** Its newHeads subscription id, while subscribed. */
  subscriptionId: string | undefined;
  polling: boolean;
}

export class HeadTracker implements HeadSource {
  private readonly chain = new RecentChain();
  private readonly sources: Source[];
  private readonly changeListeners = new Set<(change: HeadChange) => void>();
  private readonly blockListeners = new Set<(head: Head) => void>();
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  private seenHeight: number | undefined;
  private readonly log: Logger;

  constructor(
    transports: UpstreamTransport[],
    private readonly options: TrackerOptions,
  ) {
    this.log = options.logger.child({ network: options.network, component: 'head-tracker' });
    this.sources = transports.map((transport) => ({
      name: transport.name,
      transport,
      head: undefined,
      seenAt: 0,
      live: false,
      timer: undefined,
      subscribed: false,
      subscriptionId: undefined,
      polling: false,
    }));
  }

  /**
   * Subscribes or starts polling on every upstream; resolves after the first round of reports, or after
   * START_WAIT_MS when an upstream hangs (it goes on in the background).
   */
  async start(): Promise<void> {
    const first = Promise.all(this.sources.map((s) => this.startSource(s))).then(() => this.queue);
    await Promise.race([first, sleep(START_WAIT_MS, undefined, { ref: false })]);
  }

  get head(): TrackedBlock | undefined {
    return this.chain.head;
  }

  /**
   * The highest block number known to exist: the head, or higher while an upstream has answered a higher
   * eth_blockNumber than the tracker has seen a block for (lowered only by a reorganisation).
   */
  get height(): number | undefined {
    const head = this.chain.head?.number;
    if (head === undefined) return this.seenHeight;
    return this.seenHeight === undefined ? head : Math.max(head, this.seenHeight);
  }

  /** A block number an upstream answered (eth_blockNumber): the chain is at least this high. */
  noteHeight(n: number): void {
    if (this.seenHeight === undefined || n > this.seenHeight) this.seenHeight = n;
  }

  get latest(): Head | undefined {
    const head = this.chain.head;
    return head && { number: head.number, hash: head.hash };
  }

  /** The head an upstream (by transport name) last reported, while that is current, for the pool's health. */
  upstreamHead(name: string): number | undefined {
    const source = this.sources.find((s) => s.name === name);
    return source?.live ? source.head : undefined;
  }

  /**
   * Asks the polled upstreams whose last report is older than the poll interval (`all`: every polled one)
   * for their latest block now; the pool's health check calls this, so that it needs no eth_blockNumber.
   */
  async refresh(all: boolean): Promise<void> {
    const due = this.sources.filter((s) => !s.subscribed && (all || Date.now() - s.seenAt >= this.options.pollIntervalMs));
    await Promise.all(due.map((s) => this.fetchLatest(s)));
  }

  /** Whether the block of that hash is on the chain as the tracker knows it. */
  isCanonical(hash: string): boolean {
    return this.chain.has(hash.toLowerCase());
  }

  /** The remembered block at `number` on the current chain. */
  blockAt(number: number): TrackedBlock | undefined {
    return this.chain.at(number);
  }

  onChange(listener: (change: HeadChange) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  onBlock(listener: (head: Head) => void): () => void {
    this.blockListeners.add(listener);
    return () => this.blockListeners.delete(listener);
  }

  stop(): void {
    this.stopped = true;
    for (const s of this.sources) clearTimeout(s.timer);
  }

  /**
   * Unsubscribes newHeads on every WebSocket upstream (the transports are closed by their owner); an
   * upstream that does not answer within a second is not waited for (the service must stop within 5 s).
   */
  async close(): Promise<void> {
    this.stop();
    const unsubscribed = Promise.all(
      this.sources.map(async (s) => {
        if (s.subscriptionId && s.transport instanceof WsUpstream) await s.transport.unsubscribe(s.subscriptionId);
      }),
    );
    await Promise.race([unsubscribed, sleep(CLOSE_WAIT_MS, undefined, { ref: false })]);
  }

  // --- sources

  private async startSource(source: Source): Promise<void> {
    const transport = source.transport;
    if (transport instanceof WsUpstream) {
      transport.on('reconnected', () => void this.subscribe(source));
      // A WebSocket that drops with its subscription is polled until it is back (see subscribe()).
      transport.on('connection-lost', () => this.pollWhileDown(source));
      await this.subscribe(source);
    }
    if (!source.subscribed) await this.poll(source);
  }

  private async subscribe(source: Source): Promise<void> {
    const transport = source.transport as WsUpstream;
    if (this.stopped) return;
    try {
      const outcome = await transport.subscribe(['newHeads'], (result) => {
        const block = toTrackedBlock(result);
        if (block) void this.enqueue(source, block);
      });
      if (outcome.error !== undefined) throw new Error(outcome.error.message);
      source.subscriptionId = outcome.result as string;
      source.subscribed = true;
      source.live = true;
      clearTimeout(source.timer);
      source.timer = undefined;
      // What came while it was not subscribed is filled in from its latest block.
      await this.fetchLatest(source);
    } catch (err) {
      source.subscribed = false;
      this.log.debug({ upstream: source.name, err: (err as Error).message }, 'newHeads subscription failed; polling');
      this.schedulePoll(source);
    }
  }

  private pollWhileDown(source: Source): void {
    source.subscribed = false;
    source.subscriptionId = undefined;
    source.live = false;
    this.schedulePoll(source);
  }

  private schedulePoll(source: Source): void {
    if (this.stopped || source.timer) return;
    source.timer = setTimeout(() => {
      source.timer = undefined;
      void this.poll(source);
    }, this.options.pollIntervalMs);
    source.timer.unref();
  }

  private async poll(source: Source): Promise<void> {
    if (this.stopped || source.subscribed || source.polling) return;
    source.polling = true;
    try {
      await this.fetchLatest(source);
    } finally {
      source.polling = false;
      if (!source.subscribed) this.schedulePoll(source);
    }
  }

  private async fetchLatest(source: Source): Promise<void> {
    try {
      const outcome = await source.transport.send({ method: 'eth_getBlockByNumber', params: ['latest', false] });
      const block = toTrackedBlock(outcome.result);
      if (!block) throw new Error('answered eth_getBlockByNumber latest without a block');
      if (!source.subscribed) source.live = true;
      await this.enqueue(source, block);
    } catch (err) {
      if (!source.subscribed) source.live = false;
      this.log.debug({ upstream: source.name, err: (err as Error).message }, 'head poll failed');
    }
  }

  // --- the chain

  private enqueue(source: Source, block: TrackedBlock): Promise<void> {
    const run = this.queue.then(() => this.handle(source, block));
    this.queue = run.catch((err: Error) => this.log.warn({ upstream: source.name, err: err.message }, 'head not taken'));
    return this.queue;
  }

  private async handle(source: Source, block: TrackedBlock): Promise<void> {
    if (this.stopped) return;
    const previous = source.head;
    source.head = block.number;
    source.seenAt = Date.now();
    const tip = this.chain.head;
    if (this.chain.at(block.number)?.hash === block.hash) {
      // Known. A node whose chain became shorter reports an old block as its head: a reorganisation, once
      // no other upstream still reports the tip (one stale answer of a load-balanced provider is not one).
      const stillAtTip = (s: Source) => s !== source && s.live && s.head !== undefined && tip !== undefined && s.head >= tip.number;
      if (tip && block.number < tip.number && previous !== undefined && previous >= tip.number && !this.sources.some(stillAtTip)) {
        this.emit(this.chain.adopt([block]));
      }
      return;
    }
    if (tip && block.number <= tip.number && (previous === undefined || previous < block.number)) return;
    const run = await this.linkedRun(source, block);
    if (!run) return;
    this.emit(run.restart ? this.chain.restart(block) : this.chain.adopt(run.blocks));
  }

  /** `block` with its missing ancestors, oldest first, down to one that links to the chain. */
  private async linkedRun(source: Source, block: TrackedBlock): Promise<{ blocks: TrackedBlock[]; restart?: boolean } | undefined> {
    const max = this.options.maxBackfill ?? 128;
    const tip = this.chain.head;
    if (tip && block.number - tip.number > max) {
      this.log.warn({ from: tip.number, to: block.number }, 'head jumped further than the backfill limit: restarting there');
      return { blocks: [block], restart: true };
    }
    const run = [block];
    while (!this.chain.links(run[0])) {
      if (run.length > max) {
        this.log.warn({ at: block.number }, 'no fork point within the backfill limit: restarting there');
        return { blocks: [block], restart: true };
      }
      const parent = await this.blockByHash(source, run[0].parentHash);
      if (!parent) return undefined; // not to be had now; the next report tries again
      run.unshift(parent);
    }
    return { blocks: run };
  }

  /** A block by hash from the upstream that reported its child, else from any upstream. */
  private async blockByHash(source: Source, hash: string): Promise<TrackedBlock | undefined> {
    const call = { method: 'eth_getBlockByHash', params: [hash, false] };
    try {
      const block = toTrackedBlock((await source.transport.send(call)).result);
      if (block) return block;
    } catch {
      // that upstream failed; another may have it
    }
    try {
      return toTrackedBlock((await this.options.send(call)).result);
    } catch {
      return undefined;
    }
  }

  private emit(change: HeadChange): void {
    if (change.added.length === 0 && change.removed.length === 0) return;
    const tip = this.chain.head;
    if (tip) metrics.networkHead.labels(this.options.network).set(tip.number);
    if (change.removed.length > 0) {
      this.log.info({ removed: change.removed.length, from: change.removed.at(-1)!.number }, 'chain reorganisation');
      metrics.reorgs.labels(this.options.network, 'reorgs').inc();
      metrics.reorgs.labels(this.options.network, 'blocks').inc(change.removed.length);
      // A reorganisation to a shorter chain lowers the height with it.
      const head = this.chain.head?.number;
      if (head !== undefined && this.seenHeight !== undefined && head < this.seenHeight) this.seenHeight = head;
    }
    for (const listener of this.changeListeners) {
      try {
        listener(change);
      } catch (err) {
        this.log.error({ err: (err as Error).message }, 'head listener failed');
      }
    }
    const head = this.latest;
    if (head) for (const listener of this.blockListeners) listener(head);
  }
}
