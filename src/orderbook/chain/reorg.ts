/**
 * The log follower's bookkeeping of the chain it has processed, without I/O: which recent blocks it
 * remembers (hash and settlement logs), where a reorganisation forked, what it removes.
 *
 * The checkpoint is plain JSON, so the consumer can store it with the effects of the logs it reported.
 */
import { ChainError } from './rpc.js';
import type { RawLog } from './settlement-events.js';

export interface RecentBlock {
  number: number;
  /** null only for the anchor of a fresh start: the block before the first one followed, never checked. */
  hash: string | null;
  /**
   * The settlement logs of this block, kept so that a reorganisation can report them as removed; null when
   * the block ended a page of history read far below the head (taken as final, its logs not kept).
   */
  logs: RawLog[] | null;
}

export interface FollowerCheckpoint {
  /** The last block processed: its logs have been reported. */
  blockNumber: number;
  blockHash: string | null;
  /** Oldest first; the last entry is the block above. */
  recent: RecentBlock[];
}

export interface BlockHeader {
  number: number;
  hash: string;
  parentHash: string;
}

/** A reorganisation reaches below what the follower remembers: it cannot say which logs it removed. */
export class ReorgTooDeepError extends ChainError {}

/** Follow from `fromBlock` on (0: from genesis); nothing below it is of interest. */
export function initialCheckpoint(fromBlock: number): FollowerCheckpoint {
  if (!Number.isSafeInteger(fromBlock) || fromBlock < 0) throw new ChainError(`fromBlock must be a block number, got ${fromBlock}`);
  const anchor: RecentBlock = { number: fromBlock - 1, hash: null, logs: [] };
  return { blockNumber: anchor.number, blockHash: null, recent: [anchor] };
}

export function tipOf(checkpoint: FollowerCheckpoint): RecentBlock {
  const tip = checkpoint.recent.at(-1);
  if (!tip || tip.number !== checkpoint.blockNumber || tip.hash !== checkpoint.blockHash) {
    throw new ChainError('follower checkpoint is inconsistent: its last recent block is not its tip');
  }
  return tip;
}

/**
 * Index in `recent` of the newest block that is still on the chain, given the chain's current hash at each
 * remembered height (null: no block there now, the chain got shorter); -1 when none is.
 * The anchor of a fresh start counts as still there: nothing below it was followed.
 */
export function findForkPoint(recent: readonly RecentBlock[], canonical: ReadonlyMap<number, string | null>): number {
  for (let i = recent.length - 1; i >= 0; i--) {
    const block = recent[i];
    if (block.hash === null || canonical.get(block.number) === block.hash) return i;
  }
  return -1;
}

/** Drops the blocks above recent[forkIndex]; returns them, oldest first, with the shortened checkpoint. */
export function rollBack(checkpoint: FollowerCheckpoint, forkIndex: number): { checkpoint: FollowerCheckpoint; removed: RecentBlock[] } {
  if (forkIndex < 0) {
    throw new ReorgTooDeepError(`a reorganisation reaches below block ${checkpoint.recent[0]?.number}, the oldest one remembered`);
  }
  const kept = checkpoint.recent.slice(0, forkIndex + 1);
  const removed = checkpoint.recent.slice(forkIndex + 1);
  const final = removed.find((b) => b.logs === null);
  if (final) {
    throw new ReorgTooDeepError(`a reorganisation removes block ${final.number}, which was read as final with a page of history`);
  }
  const tip = kept[kept.length - 1];
  return { checkpoint: { blockNumber: tip.number, blockHash: tip.hash, recent: kept }, removed };
}

/**
 * How many of `headers` (the blocks right above the tip, in order) form a chain on top of it: each one's
 * parent is the one before. A missing header (null) ends the chain.
 */
export function linkedCount(tip: Pick<RecentBlock, 'number' | 'hash'>, headers: readonly (BlockHeader | null)[]): number {
  let previous = tip;
  let count = 0;
  for (const header of headers) {
    if (!header || header.number !== previous.number + 1) break;
    if (previous.hash !== null && header.parentHash !== previous.hash) break;
    previous = header;
    count++;
  }
  return count;
}

/** Adds processed blocks on top and forgets those more than `window` blocks below the new tip. */
export function appendBlocks(checkpoint: FollowerCheckpoint, blocks: readonly RecentBlock[], window: number): FollowerCheckpoint {
  if (blocks.length === 0) return checkpoint;
  const all = [...checkpoint.recent, ...blocks];
  const tip = all[all.length - 1];
  const recent = all.filter((b) => b.number >= tip.number - window);
  return { blockNumber: tip.number, blockHash: tip.hash, recent };
}
