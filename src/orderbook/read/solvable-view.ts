/**
 * GET /api/v1/solvable_orders, served from the `orders` read model and never recomputed per request. The
 * orders solvable by events are kept in memory, refreshed from the rows that changed since the last
 * refresh (by position; the read model is `followed`); what depends on time (validTo) and on the chain
 * (balances) is applied when the answer is built, and the built answer (its bytes and ETag) is reused until
 * the read model advances, a balance changes, or its earliest order expires.
 *
 * Building it again costs what changed, not the book: at 100,000 open orders one new order must not hold the
 * event loop (the gateway shares it) for the time of re-encoding 100 MB.
 * - The open orders are kept oldest first (the answer's order) in segments of at most a few hundred
 *   (segmented-list.ts); each segment keeps its text (its funded orders' JSON joined) and its compressed
 *   form, encoded again only when one of its orders changed. The answer is sent segment after segment,
 *   never joined; its compressed form is made from the segments' (api/encoding/gzip-pieces.ts).
 * - Each order keeps its JSON for the available balance it was written with, written again only when its
 *   state (a new entry) or that balance changed (an open, valid order's status is always "open": time alone
 *   changes nothing of it).
 * - Funding depends only on the open orders of the same owner and sell token and on that pair's spendable
 *   amount, so it is allocated per pair, again only for the pairs whose orders changed, whose amount
 *   changed (looked up per pair when the balances' version moved) or one of whose orders expired.
 * - Expiry: the open orders are in a heap by validTo, so the next to expire is known without a scan.
 * - The ETag is a hash of the set of the funded orders' JSON (api/encoding/set-hash.ts), kept up to date
 *   order by order: the same answer has the same ETag on every instance, whatever the history that made it.
 * GET /api/v1/auction takes the same segments, with each order's auction form encoded once per order state.
 * The view keeps what was encoded; the formats (JSON, compression, the ETag's hash) are the API's, given to
 * it as a SolvableEncoding (solvable-encoding.ts).
 */
import type { ReadModelStore } from './models/types.js';
import type { ProjectionRunner } from './runner.js';
import type { OrderState } from '../write/order-state.js';
import type { OrderSetHash, Pieces, SolvableEncoding } from './solvable-encoding.js';
import { ordersProjection, solvableByEvents, stateOf, type OrderDoc } from './projections/orders.js';
import type { SpendableBalances } from '../chain/port.js';
import { allocateFunding, type Funding, type FundableOrder } from '../domain/funding.js';
import { SegmentedList, type Segment } from './segmented-list.js';
import { IndexedHeap } from './indexed-heap.js';
import { nextTurn } from '../../shared/next-turn.js';

export interface SolvableAnswer {
  /** The JSON array of the orders. */
  body: Pieces;
  etag: string;
  /**
   * The body compressed (the encoding's compressedArray: gzip), made once, at the first call. The changed
   * segments' compression starts when the answer is built, off the event loop, so that the first request
   * for it after a change waits for those segments only.
   */
  compressed(): Promise<Pieces>;
  /**
   * The same orders as GET /api/v1/auction has them (a JSON array of AuctionOrder, made once, at the first
   * call), and the tokens they sell or buy, in the order they first appear.
   */
  auctionOrders(): { orders: Pieces; tokens: string[] };
}

interface Built extends SolvableAnswer {
  cursor: number;
  balancesVersion: number;
  /** The answer holds while now <= validUntil (the earliest validTo among the open orders). */
  validUntil: number;
}

const NAME = ordersProjection.name;

/** How much the view does at a time. Tests take small numbers, to split segments and yield often. */
export interface SolvableLimits {
  /** Orders per segment at most (a segment splits beyond it). */
  segmentSize: number;
  /** Rows of the read model taken in per turn of the event loop (the first refresh takes them all). */
  rowsPerTurn: number;
  /** Orders looked at (their funding allocated, their JSON written and hashed when changed) per turn while building. */
  ordersPerTurn: number;
  /** Bytes of segment text joined per turn while building. */
  bytesPerTurn: number;
}

const LIMITS: SolvableLimits = { segmentSize: 384, rowsPerTurn: 2000, ordersPerTurn: 500, bytesPerTurn: 4 << 20 };

/**
 * One open order: its state, its amounts as the funding allocation takes them (made once), its JSON for the
 * available balance it was last written with, and the JSON it has in the answer now (when funded). A change
 * of the order's state replaces the whole entry.
 */
interface Entry {
  state: OrderState;
  fundable: FundableOrder;
  pair: Pair;
  written?: Written;
  /** Its JSON in the answer (in its segment's text and in the ETag's set); undefined when not funded. */
  shown?: Written;
  /** Its JSON as GET /api/v1/auction has it, made when first asked. */
  auctionJson?: Buffer;
  segment?: Segment<Entry, Encoded>;
  heapIndex?: number;
}

interface Written {
  availableBalance: bigint | null;
  json: Buffer;
}

/** A segment's funded orders, their JSON joined by commas, and that text compressed. */
interface Encoded {
  shown: Entry[];
  text: Buffer;
  /** The text compressed, started when the segment is encoded. */
  piece: Promise<unknown>;
  /** The orders' auction forms joined, and their tokens: made when first asked. */
  auction?: { text: Buffer; tokens: string[] };
}

interface Pair {
  owner: string;
  token: string;
  orders: Map<string, Entry>;
  /**
   * The funding of its orders valid from `from` to `validUntil` (the earliest validTo among them), for the
   * spendable amount it was allocated from; dropped when its orders change.
   */
  funded?: { spendable: bigint | undefined; from: number; validUntil: number; byUid: Map<string, Funding> };
  /** The spendable amount the answer's funding of its orders was allocated with (GET /orders/{UID} may allocate again meanwhile). */
  shownWith?: { spendable: bigint | undefined };
}

function oldestFirst(a: Entry, b: Entry): number {
  const x = a.state.order!;
  const y = b.state.order!;
  return x.creationDate < y.creationDate ? -1 : x.creationDate > y.creationDate ? 1 : x.uid < y.uid ? -1 : x.uid > y.uid ? 1 : 0;
}

function fundable(state: OrderState): FundableOrder {
  const o = state.order!;
  return {
    uid: o.uid,
    owner: o.owner,
    sellToken: o.sellToken,
    kind: o.kind,
    partiallyFillable: o.partiallyFillable,
    sellAmount: state.amounts!.sellAmount,
    buyAmount: state.amounts!.buyAmount,
    feeAmount: state.amounts!.feeAmount,
    executedSellAmount: state.executed.sellAmount,
    executedBuyAmount: state.executed.buyAmount,
  };
}

const pairKey = (order: { owner: string; sellToken: string }) => `${order.owner}:${order.sellToken}`;

export class SolvableOrders {
  private readonly open = new Map<string, Entry>();
  /** The open orders, oldest first (the answer's order), in segments. */
  private readonly ordered: SegmentedList<Entry, Encoded>;
  /** The open orders, the next to expire first. */
  private readonly expiring = new IndexedHeap<Entry>((entry) => entry.state.order!.validTo);
  /** The open orders by (owner, sell token). */
  private readonly pairs = new Map<string, Pair>();
  /** The pairs whose orders changed since the last answer was built. */
  private readonly changedPairs = new Set<Pair>();
  /** The funded orders' JSON in the answer, as a set: the ETag. */
  private readonly shown: OrderSetHash;
  /** The balances' version the shown funding was allocated at. */
  private balancesSeen = -1;
  /** Highest row position taken in. */
  private cursor = 0;
  /** The read model's checkpoint this view has caught up with. */
  private syncedTo = 0;
  /** The last refresh asked for, settled either way: the next one runs after it. */
  private refreshed: Promise<void> = Promise.resolve();
  private built: Built | undefined;
  private readonly limits: SolvableLimits;
  /** The build in progress: one at a time. */
  private building: Promise<void> | undefined;

  constructor(
    private readonly store: ReadModelStore,
    private readonly runner: ProjectionRunner,
    private readonly balances: SpendableBalances | undefined,
    /** How orders are written (the API's formats). */
    private readonly encoding: SolvableEncoding,
    limits: Partial<SolvableLimits> = {},
  ) {
    this.limits = { ...LIMITS, ...limits };
    this.shown = encoding.orderSet();
    this.ordered = new SegmentedList<Entry, Encoded>(oldestFirst, this.limits.segmentSize);
  }

  async start(): Promise<void> {
    this.runner.on('advanced', (name: string) => {
      // Ahead of the answers: one that fails here is tried again by the next answer, which refreshes itself.
      if (name === NAME) this.refresh().catch(() => undefined);
    });
    await this.refresh();
  }

  /**
   * The answer at `now` (Unix seconds), current with the read model as the runner knows it. A build that has
   * much to do (the first, or a balance change of an owner with many orders) yields to the event loop between
   * batches; what changed meanwhile is built next, before this answers.
   */
  async answer(now: number): Promise<SolvableAnswer> {
    for (;;) {
      if (this.syncedTo < this.runner.checkpoint(NAME)) await this.refresh();
      const b = this.built;
      if (b && this.holds(b, now)) return b;
      this.building ??= this.build(now).finally(() => {
        this.building = undefined;
      });
      await this.building;
    }
  }

  /** Whether the answer built is the one for `now` and what the view holds. */
  private holds(b: Built, now: number): boolean {
    return b.cursor === this.cursor && b.balancesVersion === (this.balances?.version ?? 0) && now <= b.validUntil && this.changedPairs.size === 0;
  }

  /** Funding of an open, valid order at `now`; undefined for orders that are not open. */
  async fundingOf(uid: string, now: number): Promise<Funding | undefined> {
    if (this.syncedTo < this.runner.checkpoint(NAME)) await this.refresh();
    const entry = this.open.get(uid);
    if (!entry || entry.state.order!.validTo < now) return undefined;
    return this.fundingOfPair(entry.pair, now).get(uid);
  }

  /** The funding of the pair's orders valid at `now`: the one kept, unless its orders or spendable amount changed or one expired. */
  private fundingOfPair(pair: Pair, now: number): Map<string, Funding> {
    const spendable = this.balances?.get(pair.owner, pair.token);
    const kept = pair.funded;
    if (kept && kept.spendable === spendable && kept.from <= now && now <= kept.validUntil) return kept.byUid;
    const valid = [...pair.orders.values()].filter((e) => e.state.order!.validTo >= now).sort(oldestFirst);
    const byUid = allocateFunding(valid.map((e) => e.fundable), () => spendable);
    pair.funded = { spendable, from: now, validUntil: valid.reduce((min, e) => Math.min(min, e.state.order!.validTo), Number.MAX_SAFE_INTEGER), byUid };
    return byUid;
  }

  private refresh(): Promise<void> {
    // One refresh at a time; a caller arriving during one waits for the next, which sees its rows.
    const run = async () => {
      // The runner's checkpoint is never ahead of the stored one, so the rows found below cover it.
      const checkpoint = this.runner.checkpoint(NAME);
      let pairsChanged = false;
      for (let page = 0; ; page++) {
        // A page at a time, the event loop served between pages: the first refresh reads the whole book. Each
        // event changes one order's document (keysOf), so no two rows share a position a page could split.
        if (page > 0) await nextTurn();
        const rows = await this.store.find<OrderDoc>(NAME, {
          where: [{ column: 'position', op: '>', value: this.cursor }],
          orderBy: [{ column: 'position' }],
          limit: this.limits.rowsPerTurn,
        });
        for (const row of rows) {
          const state = stateOf(row.doc);
          pairsChanged = this.remove(row.key) || pairsChanged;
          if (solvableByEvents(state)) pairsChanged = this.add(row.key, state) || pairsChanged;
          if (row.position > this.cursor) this.cursor = row.position;
        }
        if (rows.length < this.limits.rowsPerTurn) break;
      }
      this.syncedTo = Math.max(this.syncedTo, checkpoint);
      if (pairsChanged) this.trackBalances();
    };
    // A refresh that fails (the store did not answer) fails its own callers only: the one after it runs,
    // from the cursor the view stands at.
    const next = this.refreshed.then(run);
    this.refreshed = next.catch(() => undefined);
    return next;
  }

  /** The balances to keep current at every block: those of the open orders' owners and sell tokens. */
  private trackBalances(): void {
    this.balances?.track([...this.pairs.values()].map((p) => [p.owner, p.token] as const));
  }

  /** Adds an open order; true when its pair is new. */
  private add(uid: string, state: OrderState): boolean {
    const key = pairKey(state.order!);
    const known = this.pairs.get(key);
    const pair = known ?? { owner: state.order!.owner, token: state.order!.sellToken, orders: new Map<string, Entry>() };
    if (!known) this.pairs.set(key, pair);
    const entry: Entry = { state, fundable: fundable(state), pair };
    this.open.set(uid, entry);
    pair.orders.set(uid, entry);
    pair.funded = undefined;
    this.changedPairs.add(pair);
    this.ordered.insert(entry);
    this.expiring.push(entry);
    return !known;
  }

  /** Removes an order if open; true when that leaves its pair without orders. */
  private remove(uid: string): boolean {
    const entry = this.open.get(uid);
    if (!entry) return false;
    this.open.delete(uid);
    if (entry.shown) this.shown.remove(entry.shown.json);
    entry.shown = undefined;
    this.ordered.remove(entry);
    this.expiring.remove(entry);
    const pair = entry.pair;
    pair.orders.delete(uid);
    pair.funded = undefined;
    if (pair.orders.size > 0) {
      this.changedPairs.add(pair);
      return false;
    }
    this.changedPairs.delete(pair);
    this.pairs.delete(pairKey(entry.state.order!));
    return true;
  }

  /** The order's JSON in the answer: the one written before, unless its available balance changed. */
  private written(entry: Entry, now: number, availableBalance: bigint | null): Written {
    if (entry.written?.availableBalance === availableBalance) return entry.written;
    const json = this.encoding.order(entry.state, now, availableBalance);
    return (entry.written = { availableBalance, json });
  }

  /**
   * Allocates the pair's funding at `now` and puts in the answer what changed of its orders; answers how
   * many of its orders it looked at.
   */
  private show(pair: Pair, now: number): number {
    const byUid = this.fundingOfPair(pair, now);
    pair.shownWith = { spendable: pair.funded!.spendable };
    for (const [uid, entry] of pair.orders) {
      // An order taken in during a build's yield may be expired already: not shown, and removed by the next.
      const f = byUid.get(uid);
      const next = f?.funded ? this.written(entry, now, f.availableBalance) : undefined;
      if (next === entry.shown) continue;
      if (entry.shown) this.shown.remove(entry.shown.json);
      if (next) this.shown.add(next.json);
      entry.shown = next;
      this.ordered.touch(entry);
    }
    return pair.orders.size;
  }

  /**
   * Builds the answer at `now` from what changed since the last. Between batches it yields to the event
   * loop; a refresh may then change orders, which are in `changedPairs` and in segments without an encoding
   * again, so the last step (no yield) encodes what is left and takes the ETag from the same state.
   */
  private async build(now: number): Promise<void> {
    const cursor = this.cursor;
    const balancesVersion = this.balances?.version ?? 0;

    // An expired order never becomes valid again: forget it, and stop reading its owner's balance.
    let pairsGone = false;
    for (let next = this.expiring.peek(); next && next.state.order!.validTo < now; next = this.expiring.peek()) {
      pairsGone = this.remove(next.state.order!.uid) || pairsGone;
    }
    if (pairsGone) this.trackBalances();
    // A new version of the balances: the pairs whose amount is not the one their funding was allocated with.
    if (this.balances && balancesVersion !== this.balancesSeen) {
      for (const pair of this.pairs.values()) {
        if (pair.shownWith?.spendable !== this.balances.get(pair.owner, pair.token)) this.changedPairs.add(pair);
      }
    }
    this.balancesSeen = balancesVersion;
    let work = 0;
    // A pair changed again meanwhile is added again, after the one being visited, and visited again.
    for (const pair of this.changedPairs) {
      this.changedPairs.delete(pair);
      work += this.show(pair, now);
      if (work >= this.limits.ordersPerTurn) {
        work = 0;
        await nextTurn();
      }
    }
    let bytes = 0;
    for (const segment of this.ordered.segments) {
      if (segment.encoded) continue;
      segment.encoded = this.encode(segment.items);
      bytes += segment.encoded.text.length;
      if (bytes >= this.limits.bytesPerTurn) {
        bytes = 0;
        await nextTurn();
      }
    }

    const kept: Encoded[] = [];
    for (const segment of this.ordered.segments) {
      const encoded = (segment.encoded ??= this.encode(segment.items));
      if (encoded.text.length > 0) kept.push(encoded);
    }
    const etag = this.shown.etag();
    let compressed: Promise<Pieces> | undefined;
    let auction: { orders: Pieces; tokens: string[] } | undefined;
    this.built = {
      body: this.encoding.array(kept.map((encoded) => encoded.text)),
      etag,
      compressed: () => (compressed ??= this.compressed(kept)),
      auctionOrders: () => (auction ??= this.auctionOrders(kept)),
      cursor,
      balancesVersion,
      validUntil: this.expiring.peek()?.state.order!.validTo ?? Number.MAX_SAFE_INTEGER,
    };
  }

  /** A segment's encoding: its funded orders' JSON joined, compressed off the event loop. */
  private encode(items: readonly Entry[]): Encoded {
    const shown = items.filter((entry) => entry.shown);
    const text = this.encoding.join(shown.map((entry) => entry.shown!.json));
    const piece = this.encoding.compress(text);
    // A client may never ask for the compressed answer: a failed compression is then nobody's to hear.
    piece.catch(() => undefined);
    return { shown, text, piece };
  }

  /** The answer compressed, once the segments' pieces are. */
  private async compressed(segments: readonly Encoded[]): Promise<Pieces> {
    const pieces = await Promise.all(segments.map((segment) => segment.piece));
    return this.encoding.compressedArray(pieces);
  }

  /** The answer's orders in their auction form, from each segment's (made once per segment encoding). */
  private auctionOrders(segments: readonly Encoded[]): { orders: Pieces; tokens: string[] } {
    const tokens = new Set<string>();
    const texts = segments.map((segment) => {
      segment.auction ??= this.auctionSegment(segment.shown);
      for (const token of segment.auction.tokens) tokens.add(token);
      return segment.auction.text;
    });
    return { orders: this.encoding.array(texts), tokens: [...tokens] };
  }

  private auctionSegment(shown: readonly Entry[]): { text: Buffer; tokens: string[] } {
    const tokens = new Set<string>();
    const jsons = shown.map((entry) => {
      const order = entry.state.order!;
      tokens.add(order.sellToken).add(order.buyToken);
      // The auction form has no field that depends on the time or the balance: one per order state.
      return (entry.auctionJson ??= this.encoding.auctionOrder(entry.state));
    });
    return { text: this.encoding.join(jsons), tokens: [...tokens] };
  }
}
