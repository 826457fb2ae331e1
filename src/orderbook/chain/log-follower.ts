/**
 * Follows the settlement contract's logs through a ChainRpc and hands them to a sink, with reorganisations.
 *
 * One tick:
 * 1. If the last processed block (the tip) is no longer on the chain, find the newest remembered block that
 *    is (the fork point) and report the logs of the blocks above it as removed.
 * 2. Read ahead from the tip. Far below the head (more than `reorgWindow` blocks deep) history is read in
 *    pages of `maxBlockRange` blocks with one eth_getLogs each, and taken as final. Near the head every
 *    block's header is read, must link to the one before, and the logs must come from those very blocks;
 *    the blocks are remembered (hash and logs) for `reorgWindow` blocks so that a later reorganisation can
 *    report exactly what it removed.
 * 3. Hand removed and added logs with the new checkpoint to the sink and wait for it: only then does the
 *    follower move on. A sink that fails leaves the checkpoint where it was, and the next tick produces the
 *    same changes again, so the consumer sees every log once if it stores effects and checkpoint together
 *    (and stays safe if it also ignores a (blockHash, logIndex) it has already seen).
 *
 * New blocks are found by polling eth_blockNumber every `pollIntervalMs`. A reorganisation deeper than
 * `reorgWindow` stops the follower with a ReorgTooDeepError (reported to onError): it cannot be undone from
 * what the follower remembers.
 */
import type { HeadSource } from './port.js';
import { batchInChunks, ChainError, fromQuantity, headNumber, resultOf, toQuantity, type ChainRpc } from './rpc.js';
import {
  appendBlocks,
  findForkPoint,
  linkedCount,
  ReorgTooDeepError,
  rollBack,
  tipOf,
  type BlockHeader,
  type FollowerCheckpoint,
  type RecentBlock,
} from './reorg.js';
import { decodeSettlementLog, settlementTopics, type DecodedLog, type RawLog } from './settlement-events.js';

export interface FollowerChanges {
  /** Logs of blocks a reorganisation took off the chain, newest first (undo in this order). */
  removed: DecodedLog[];
  /** Logs of newly processed blocks, in chain order. */
  added: DecodedLog[];
  /** Where the follower stands once these changes are applied; store it with their effects. */
  checkpoint: FollowerCheckpoint;
}

export interface LogSink {
  onChanges(changes: FollowerChanges): Promise<void>;
}

export interface LogFollowerOptions {
  /** The settlement contract. */
  address: string;
  /** Where to resume: a checkpoint the sink stored, or initialCheckpoint(fromBlock). */
  checkpoint: FollowerCheckpoint;
  sink: LogSink;
  /** Widest eth_getLogs block range (default 1,000). */
  maxBlockRange?: number;
  /** Deepest reorganisation that can be undone, in blocks (default 64). */
  reorgWindow?: number;
  /** Most calls per JSON-RPC batch (default 100). */
  maxBatchSize?: number;
  pollIntervalMs?: number;
  /**
   * The head as the gateway's head tracker knows it: then the follower asks no eth_blockNumber, makes no
   * call at all while the tracker's head is its tip, and wakes at each new block (polling stays as a
   * fallback).
   */
  heads?: HeadSource;
  /** Told about every failed tick; the follower retries after pollIntervalMs, except after ReorgTooDeepError. */
  onError?: (err: Error) => void;
}

/** What reading ahead found, or null when the chain changed under the reads (try again next tick). */
type ReadAhead = { blocks: RecentBlock[]; logs: RawLog[] } | null;

export class LogFollower {
  private current: FollowerCheckpoint;
  private readonly address: string;
  private readonly maxBlockRange: number;
  private readonly reorgWindow: number;
  private readonly maxBatchSize: number;
  private readonly pollIntervalMs: number;
  private running = false;
  private ticking = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private stopHeads: (() => void) | undefined;

  constructor(
    private readonly rpc: ChainRpc,
    private readonly options: LogFollowerOptions,
  ) {
    tipOf(options.checkpoint);
    this.current = options.checkpoint;
    this.address = options.address.toLowerCase();
    this.maxBlockRange = options.maxBlockRange ?? 1_000;
    this.reorgWindow = options.reorgWindow ?? 64;
    this.maxBatchSize = options.maxBatchSize ?? 100;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    if (this.maxBlockRange < 1 || this.reorgWindow < 1 || this.maxBatchSize < 1) {
      throw new ChainError('maxBlockRange, reorgWindow and maxBatchSize must be at least 1');
    }
  }

  /** The checkpoint of the last changes the sink accepted. */
  get checkpoint(): FollowerCheckpoint {
    return this.current;
  }

  /**
   * One step; true when the sink was given changes (more may be waiting), false when there was nothing new.
   * Steps never overlap: a tick while another runs (e.g. from start()'s loop) is refused.
   */
  async tick(): Promise<boolean> {
    if (this.ticking) throw new ChainError('the log follower is already in a tick');
    this.ticking = true;
    try {
      return await this.step();
    } finally {
      this.ticking = false;
    }
  }

  private async step(): Promise<boolean> {
    const latest = this.options.heads?.latest;
    let checkpoint = this.current;
    const tip = tipOf(checkpoint);
    // Nothing new when the tracker's head is the tip itself.
    if (latest && tip.hash !== null && latest.number === tip.number && latest.hash === tip.hash.toLowerCase()) return false;
    const head = latest?.number ?? (await headNumber(this.rpc));
    let removed: RecentBlock[] = [];

    if (tip.hash !== null && (await this.header(tip.number))?.hash !== tip.hash) {
      const remembered = checkpoint.recent.filter((b) => b.hash !== null).map((b) => b.number);
      const canonical = await this.canonicalHashes(remembered);
      ({ checkpoint, removed } = rollBack(checkpoint, findForkPoint(checkpoint.recent, canonical)));
    }

    const ahead = await this.readAhead(tipOf(checkpoint), head);
    const blocks = ahead?.blocks ?? [];
    if (removed.length === 0 && blocks.length === 0) return false;

    const next = appendBlocks(checkpoint, blocks, this.reorgWindow);
    const removedLogs = removed.flatMap((b) => b.logs ?? []).reverse();
    await this.options.sink.onChanges({ removed: decodeAll(removedLogs), added: decodeAll(ahead?.logs ?? []), checkpoint: next });
    this.current = next;
    return true;
  }

  /** Ticks until the follower has processed the head it saw last. */
  async catchUp(): Promise<void> {
    while (await this.tick());
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopHeads = this.options.heads?.onBlock(() => this.wake?.());
    this.loop = this.run();
  }

  /** Stops polling; resolves once a tick in progress (and its sink call) has finished. */
  async stop(): Promise<void> {
    this.running = false;
    this.stopHeads?.();
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let progressed = false;
      try {
        progressed = await this.tick();
      } catch (err) {
        this.options.onError?.(err as Error);
        if (err instanceof ReorgTooDeepError) this.running = false;
      }
      if (!progressed && this.running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.pollIntervalMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = undefined;
      }
    }
  }

  private async readAhead(tip: RecentBlock, head: number): Promise<ReadAhead> {
    const from = tip.number + 1;
    if (from > head) return { blocks: [], logs: [] };
    const finalHead = head - this.reorgWindow;
    if (from <= finalHead) {
      const to = Math.min(from + this.maxBlockRange - 1, finalHead);
      const logs = await this.logs(from, to);
      const end = await this.header(to);
      if (!end) return null;
      return { blocks: [{ number: to, hash: end.hash, logs: null }], logs };
    }

    const to = Math.min(head, from + this.maxBlockRange - 1);
    const numbers = Array.from({ length: to - from + 1 }, (_, i) => from + i);
    const headers = await this.headers(numbers);
    if (linkedCount(tip, headers) !== headers.length) return null;
    const logs = await this.logs(from, to);
    const byHash = new Map(headers.map((h) => [h!.hash, h!]));
    if (logs.some((log) => !byHash.has(log.blockHash.toLowerCase()))) return null;
    // The same last block after eth_getLogs means the logs were read from the chain the headers describe.
    if ((await this.header(to))?.hash !== headers[headers.length - 1]!.hash) return null;
    const blocks = headers.map((h) => ({
      number: h!.number,
      hash: h!.hash,
      logs: logs.filter((log) => log.blockHash.toLowerCase() === h!.hash),
    }));
    return { blocks, logs };
  }

  private async logs(from: number, to: number): Promise<RawLog[]> {
    const filter = {
      address: this.address,
      fromBlock: toQuantity(from),
      toBlock: toQuantity(to),
      topics: [Object.values(settlementTopics())],
    };
    const logs = await this.rpc.call('eth_getLogs', [filter]);
    if (!Array.isArray(logs)) throw new ChainError('eth_getLogs did not answer an array');
    return (logs as RawLog[]).filter((log) => !log.removed);
  }

  private async header(number: number): Promise<BlockHeader | null> {
    return (await this.headers([number]))[0];
  }

  private headers(numbers: number[]): Promise<(BlockHeader | null)[]> {
    return readHeaders(this.rpc, numbers, this.maxBatchSize);
  }

  private canonicalHashes(numbers: number[]): Promise<Map<number, string | null>> {
    return canonicalHashes(this.rpc, numbers, this.maxBatchSize);
  }
}

/** The headers of blocks `numbers` (null where the chain has no such block), in batches of `maxBatchSize`. */
async function readHeaders(rpc: ChainRpc, numbers: number[], maxBatchSize: number): Promise<(BlockHeader | null)[]> {
  const calls = numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [toQuantity(n), false] }));
  const answers = await batchInChunks(rpc, calls, maxBatchSize);
  return answers.map((answer, i) => toHeader(resultOf(answer, `eth_getBlockByNumber(${numbers[i]})`)));
}

/**
 * The hash of the canonical block at each of `numbers` (null where there is none); a failed lookup throws.
 * Lowercase, as every hash this module hands out.
 */
export async function canonicalHashes(rpc: ChainRpc, numbers: number[], maxBatchSize: number): Promise<Map<number, string | null>> {
  const headers = await readHeaders(rpc, numbers, maxBatchSize);
  return new Map(numbers.map((n, i) => [n, headers[i]?.hash ?? null]));
}

function toHeader(block: unknown): BlockHeader | null {
  if (block === null) return null;
  const b = block as { number?: unknown; hash?: unknown; parentHash?: unknown };
  if (typeof b.hash !== 'string' || typeof b.parentHash !== 'string') throw new ChainError('a block without hash or parentHash');
  return { number: fromQuantity(b.number, 'block number'), hash: b.hash.toLowerCase(), parentHash: b.parentHash.toLowerCase() };
}

function decodeAll(logs: RawLog[]): DecodedLog[] {
  return logs.map(decodeSettlementLog).filter((log): log is DecodedLog => log !== null);
}
