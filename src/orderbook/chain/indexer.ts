/**
 * The indexer: follows the settlement contract's logs and turns them into the order book's chain-fact
 * commands. Trade → RecordTrade, OrderInvalidated → InvalidateOrder, PreSignature → SetPresignature; a log
 * that a reorganisation removed → RevertChainEvent (a compensating event: the log is never rewritten).
 * Every command is idempotent by (blockHash, logIndex), so the checkpoint is saved after the commands: a
 * crash in between only makes the next leader apply the same changes again, to no effect.
 *
 * A reorganisation deeper than the follower remembers (or an embedded chain that restarted empty) is
 * reconciled from the chain facts the indexer recorded as it appended them (indexer-state.ts): every
 * standing fact whose block is no longer canonical is reverted, and following starts again below the
 * lowest such block. The indexer reads no read model: what it needs is its own, on the write side.
 */
import type { EventStore } from '../store/types.js';
import type { Logger } from '../../shared/logger.js';
import { commandStreamId, orderDecider, type OrderCommand } from '../write/decider.js';
import { handle } from '../write/command-handler.js';
import { chainEventKey, ORDER_EVENT_TYPES, parseOrderEvent, type OrderEventType } from '../write/events.js';
import { canonicalHashes, LogFollower, type FollowerChanges } from './log-follower.js';
import { initialCheckpoint, ReorgTooDeepError, type FollowerCheckpoint } from './reorg.js';
import { headNumber, type ChainRpc } from './rpc.js';
import type { HeadSource } from './port.js';
import type { DecodedLog } from './settlement-events.js';
import type { IndexerState, StandingFact } from './indexer-state.js';

export interface IndexerOptions {
  rpc: ChainRpc;
  settlement: string;
  events: EventStore;
  state: IndexerState;
  logger: Logger;
  /** Where a fresh indexer starts; undefined: the head at its first start. */
  startBlock?: number;
  pollIntervalMs?: number;
  /** The gateway's head tracker of the network (see LogFollowerOptions.heads). */
  heads?: HeadSource;
  reorgWindow?: number;
  maxBlockRange?: number;
}

/** Most block lookups in one JSON-RPC batch when reconciling (providers cap batch sizes). */
const MAX_BATCH_SIZE = 100;

function chainRef(log: DecodedLog) {
  return { blockNumber: log.blockNumber, blockHash: log.blockHash, logIndex: log.logIndex, transactionHash: log.transactionHash };
}

/** The command a settlement log stands for; null for Settlement logs, which the book does not keep. */
function commandForLog(log: DecodedLog): OrderCommand | null {
  switch (log.type) {
    case 'Trade':
      return {
        type: 'RecordTrade',
        data: {
          uid: log.orderUid,
          chain: chainRef(log),
          owner: log.owner,
          sellToken: log.sellToken,
          buyToken: log.buyToken,
          sellAmount: log.sellAmount,
          buyAmount: log.buyAmount,
          feeAmount: log.feeAmount,
        },
      };
    case 'OrderInvalidated':
      return { type: 'InvalidateOrder', data: { uid: log.orderUid, chain: chainRef(log) } };
    case 'PreSignature':
      return { type: 'SetPresignature', data: { uid: log.orderUid, chain: chainRef(log), signed: log.signed } };
    case 'Settlement':
      return null;
  }
}

/** The chain fact a log adds to (or takes from) an order's stream; null for Settlement logs. */
function factOfLog(log: DecodedLog): StandingFact | null {
  if (log.type === 'Settlement') return null;
  return { uid: log.orderUid, blockNumber: log.blockNumber, blockHash: log.blockHash.toLowerCase(), logIndex: log.logIndex };
}

/** Page size of the one-time reading of the log for the facts of an indexer that ran before they were kept. */
const LOG_PAGE = 10_000;

/**
 * The chain facts of the log that stand: each chain event (trade, invalidation, presignature given or
 * revoked) not reverted since, read from position 0. For a database whose indexer ran before it recorded
 * its facts (once).
 */
export async function standingFactsInLog(events: EventStore): Promise<StandingFact[]> {
  const standing = new Map<string, StandingFact>();
  for (let after = 0; ; ) {
    const page = await events.readAll(after, LOG_PAGE);
    if (page.length === 0) break;
    after = page[page.length - 1].position;
    for (const stored of page) {
      // The log also holds app data and quotes, which are not order events.
      if (!ORDER_EVENT_TYPES.includes(stored.type as OrderEventType)) continue;
      const event = parseOrderEvent(stored);
      if (event.type === 'OrderCreated' || event.type === 'OrderCancelled') continue;
      const { uid, chain } = event.data;
      const key = `${uid}:${chainEventKey(chain)}`;
      if (event.type === 'ChainEventReverted') standing.delete(key);
      else standing.set(key, { uid, blockNumber: chain.blockNumber, blockHash: chain.blockHash.toLowerCase(), logIndex: chain.logIndex });
    }
  }
  return [...standing.values()];
}

function revertCommandForLog(log: DecodedLog): OrderCommand | null {
  if (log.type === 'Settlement') return null;
  return { type: 'RevertChainEvent', data: { uid: log.orderUid, blockHash: log.blockHash, logIndex: log.logIndex } };
}

export class Indexer {
  private follower: LogFollower | undefined;
  private stopped = false;
  private readonly name: string;
  private readonly log: Logger;
  private readonly pollIntervalMs: number;
  /** Resolves when the first catch-up is done (or the indexer is not the leader). */
  private caughtUp: Promise<void> | undefined;
  /** A reconciliation to try again. */
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly options: IndexerOptions) {
    this.name = options.settlement.toLowerCase();
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.log = options.logger.child({ component: 'indexer' });
  }

  /** Becomes the leader (waiting for it in the background when another instance leads) and follows. */
  start(): void {
    this.caughtUp = this.options.state.lead(this.name, () => this.onLostLead()).then(() => this.follow());
    this.caughtUp.catch((err: Error) => this.log.error({ err: err.message }, 'indexer failed to start'));
  }

  /** Resolves once the logs are indexed up to the head seen now (for tests); only on the leader. */
  async idle(timeoutMs = 30_000): Promise<void> {
    await this.caughtUp;
    const head = await headNumber(this.options.rpc);
    const deadline = Date.now() + timeoutMs;
    while ((this.follower?.checkpoint.blockNumber ?? -1) < head) {
      if (Date.now() > deadline) throw new Error(`indexer did not reach block ${head} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  get leading(): boolean {
    return this.follower !== undefined;
  }

  /** The last block whose logs are indexed; null while this instance does not index. */
  get indexedBlock(): number | null {
    return this.follower ? this.follower.checkpoint.blockNumber : null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.follower?.stop();
    this.follower = undefined;
    await this.options.state.release();
  }

  /**
   * Loads the checkpoint (or the start block) and follows. A failure here (the database or the node did not
   * answer) is tried again: this instance holds the leadership, so nobody else would index meanwhile.
   */
  private async follow(): Promise<void> {
    while (!this.stopped) {
      try {
        const checkpoint = (await this.options.state.load(this.name)) ?? initialCheckpoint(await this.startBlock());
        // Facts recorded from here on must join those of before: take those from the log first if needed.
        await this.standingFacts();
        if (!this.stopped) this.run(checkpoint);
        return;
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'indexer cannot start yet; retrying');
        await new Promise((resolve) => setTimeout(resolve, this.pollIntervalMs));
      }
    }
  }

  private run(checkpoint: FollowerCheckpoint): void {
    this.follower = new LogFollower(this.options.rpc, {
      address: this.options.settlement,
      checkpoint,
      sink: { onChanges: (changes) => this.apply(changes) },
      pollIntervalMs: this.pollIntervalMs,
      heads: this.options.heads,
      reorgWindow: this.options.reorgWindow,
      maxBlockRange: this.options.maxBlockRange,
      onError: (err) => this.onError(err),
    });
    this.follower.start();
    this.log.info({ from: checkpoint.blockNumber }, 'indexing settlement logs');
  }

  private async startBlock(): Promise<number> {
    if (this.options.startBlock !== undefined) return this.options.startBlock;
    return headNumber(this.options.rpc);
  }

  private async apply({ removed, added, checkpoint }: FollowerChanges): Promise<void> {
    const { state } = this.options;
    for (const log of removed) await this.command(revertCommandForLog(log));
    await state.forgetFacts(this.name, removed.map(factOfLog).filter((f) => f !== null));
    await state.recordFacts(this.name, added.map(factOfLog).filter((f) => f !== null));
    for (const log of added) await this.command(commandForLog(log));
    await state.save(this.name, checkpoint);
  }

  /**
   * The standing chain facts, as recorded. A database whose indexer ran before facts were recorded has
   * them taken from the log, once (standingFactsInLog).
   */
  private async standingFacts(): Promise<StandingFact[]> {
    const { state, events } = this.options;
    if (await state.hasFacts(this.name)) return state.standingFacts(this.name);
    const facts = await standingFactsInLog(events);
    await state.recordFacts(this.name, facts);
    return facts;
  }

  private async command(command: OrderCommand | null): Promise<void> {
    if (command) await handle(this.options.events, orderDecider, commandStreamId(command), command);
  }

  private onError(err: Error): void {
    if (!(err instanceof ReorgTooDeepError)) {
      this.log.warn({ err: err.message }, 'indexer tick failed; retrying');
      return;
    }
    this.log.warn({ err: err.message }, 'reorganisation deeper than remembered: reconciling the book with the chain');
    const stale = this.follower?.checkpoint;
    void this.follower?.stop();
    this.follower = undefined;
    this.recover(stale);
  }

  /** Reconciles, then follows again; a reconciliation that fails (the node did not answer) is tried again. */
  private recover(stale: FollowerCheckpoint | undefined): void {
    this.reconcile(stale).then(
      (from) => {
        if (!this.stopped) this.run(initialCheckpoint(from));
      },
      (e: Error) => {
        this.log.warn({ err: e.message }, 'reconciliation failed; retrying');
        if (!this.stopped) this.retry = setTimeout(() => this.recover(stale), this.pollIntervalMs);
      },
    );
  }

  /**
   * Reverts every standing chain fact whose block hash is not the canonical one any more and returns where
   * following starts again (saved as a fresh checkpoint): below the lowest reverted fact and the oldest
   * block the follower remembered; from the start block when the chain is now shorter than what was
   * followed (an embedded chain that restarted empty), since all of it is new.
   */
  private async reconcile(stale: FollowerCheckpoint | undefined): Promise<number> {
    const { rpc } = this.options;
    const facts = await this.standingFacts();
    // A failed lookup throws (the reconciliation is tried again): only a block that is not there, or
    // another block at that height, reverts a fact.
    const canonical = await canonicalHashes(rpc, [...new Set(facts.map((f) => f.blockNumber))], MAX_BATCH_SIZE);
    const head = await headNumber(rpc);
    let from = Math.min(head, stale?.recent[0]?.number ?? head);
    if (stale && head < stale.blockNumber) from = Math.min(from, this.options.startBlock ?? 0);
    const reverted: StandingFact[] = [];
    for (const fact of facts) {
      if (canonical.get(fact.blockNumber) === fact.blockHash.toLowerCase()) continue;
      await this.command({ type: 'RevertChainEvent', data: { uid: fact.uid, blockHash: fact.blockHash, logIndex: fact.logIndex } });
      reverted.push(fact);
      from = Math.min(from, fact.blockNumber);
    }
    await this.options.state.forgetFacts(this.name, reverted);
    from = Math.max(from, 0);
    await this.options.state.save(this.name, initialCheckpoint(from));
    return from;
  }

  private onLostLead(): void {
    this.log.warn('lost the indexer lock; another instance may index now');
    void this.follower?.stop();
    this.follower = undefined;
    if (!this.stopped) this.start();
  }
}
