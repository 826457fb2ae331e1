/**
 * The recent canonical chain of one network as the head tracker knows it, without I/O: the last `keep`
 * blocks by number, and the rule that turns a newly linked run of blocks into a change (blocks replaced,
 * blocks added). The tracker fetches; this decides.
 */

/** A block header as the tracker keeps it: `header` is what newHeads subscribers receive. */
export interface TrackedBlock {
  number: number;
  hash: string;
  parentHash: string;
  header: Record<string, unknown>;
}

/** What one step of the head did: `removed` (newest first) left the chain, `added` (in order) joined it. */
export interface HeadChange {
  removed: TrackedBlock[];
  added: TrackedBlock[];
}

/**
 * A block or header object from a node as a TrackedBlock; undefined when it lacks number/hash/parentHash.
 * The object is kept as the node gave it (a newHeads payload, or a block without transaction bodies).
 */
export function toTrackedBlock(raw: unknown): TrackedBlock | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.number !== 'string' || typeof r.hash !== 'string' || typeof r.parentHash !== 'string') return undefined;
  const number = Number(r.number);
  if (!Number.isSafeInteger(number)) return undefined;
  return { number, hash: r.hash.toLowerCase(), parentHash: r.parentHash.toLowerCase(), header: r };
}

export class RecentChain {
  private readonly byNumber = new Map<number, TrackedBlock>();
  private tip: TrackedBlock | undefined;

  constructor(private readonly keep = 256) {}

  get head(): TrackedBlock | undefined {
    return this.tip;
  }

  at(number: number): TrackedBlock | undefined {
    return this.byNumber.get(number);
  }

  /** Whether the block of that hash is on the chain (within the remembered blocks). */
  has(hash: string): boolean {
    return this.findNumber(hash) !== undefined;
  }

  /** The lowest block number remembered (undefined when empty). */
  get lowest(): number | undefined {
    return this.tip === undefined ? undefined : Math.max(0, this.tip.number - this.byNumber.size + 1);
  }

  /**
   * Whether `block` links to what is remembered: its parent is the remembered block below it, or nothing
   * below it is remembered (the start, or older than `keep`).
   */
  links(block: TrackedBlock): boolean {
    const below = this.byNumber.get(block.number - 1);
    if (below) return below.hash === block.parentHash;
    const lowest = this.lowest;
    return lowest === undefined || block.number - 1 < lowest;
  }

  /**
   * Makes `run` (ascending, each the parent of the next, the first one linking) the chain's newest blocks:
   * the blocks it replaces and those above it leave. Gives the change (empty when nothing changed).
   */
  adopt(run: TrackedBlock[]): HeadChange {
    // Blocks already on the chain at the start of the run are no change.
    let start = 0;
    while (start < run.length && this.byNumber.get(run[start].number)?.hash === run[start].hash) start++;
    const added = run.slice(start);
    if (added.length === 0) {
      // A run wholly on the chain but ending below the tip means the chain became shorter.
      const last = run.at(-1);
      if (!last || !this.tip || last.number >= this.tip.number) return { removed: [], added: [] };
      return { removed: this.cutAbove(last.number), added: [] };
    }
    const removed = this.cutAbove(added[0].number - 1);
    for (const block of added) this.byNumber.set(block.number, block);
    this.tip = added.at(-1);
    this.trim();
    return { removed, added };
  }

  /** Starts afresh at `block` (a gap too wide to fill): what was remembered is forgotten, not removed. */
  restart(block: TrackedBlock): HeadChange {
    this.byNumber.clear();
    this.byNumber.set(block.number, block);
    this.tip = block;
    return { removed: [], added: [block] };
  }

  /** Removes the blocks above `number`, newest first. */
  private cutAbove(number: number): TrackedBlock[] {
    const removed: TrackedBlock[] = [];
    if (!this.tip) return removed;
    for (let n = this.tip.number; n > number; n--) {
      const block = this.byNumber.get(n);
      if (block) removed.push(block);
      this.byNumber.delete(n);
    }
    this.tip = this.byNumber.get(number);
    return removed;
  }

  private trim(): void {
    if (!this.tip) return;
    for (const n of this.byNumber.keys()) if (n <= this.tip.number - this.keep) this.byNumber.delete(n);
  }

  private findNumber(hash: string): number | undefined {
    for (const [n, block] of this.byNumber) if (block.hash === hash) return n;
    return undefined;
  }
}
