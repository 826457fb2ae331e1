/**
 * GET /api/v1/solvable_orders, served from the `orders` read model and never recomputed per request. The
 * orders solvable by events are kept in memory, refreshed from the rows that changed since the last
 * refresh (by position; the read model is `followed`); what depends on time (validTo) and on the chain (balances) is applied
 * when the answer is built, and the built answer (its bytes and ETag) is reused until the read model
 * advances, a balance changes, or its earliest order expires. Building it again after one change costs
 * what changed: the open orders are kept in answer order (oldest first), each with its funding amounts and
 * its JSON, written again only when its state or its available balance changed (an open, valid order's status
 * is always "open": the time alone changes nothing of it).
 *
 * The answer is kept in segments, each with its text and its compressed form (gzip-pieces.ts), so that a
 * change writes and compresses again only the segment it falls in, and the answer (over 100 MB at 100,000
 * orders) is sent segment after segment, never joined. A segment ends after an order whose UID starts with
 * a zero byte (one in 256, the UID being a hash): where segments end depends only on the orders, so an order
 * added or removed changes its own segment and leaves the others as they were.
 *
 * An order's funding depends only on the open orders of the same owner and sell token and on that pair's
 * spendable amount, so it is allocated per pair and kept until one of these changes or one of the pair's
 * orders expires: after one new order the answer allocates that order's pair again, not the whole book,
 * and GET /orders/{UID} allocates the order's pair alone.
 */
import { createHash } from 'node:crypto';
import type { ReadModelStore } from './models/types.js';
import type { ProjectionRunner } from './runner.js';
import { presentOrder, type OrderState } from '../write/order-state.js';
import { ordersProjection, solvableByEvents, stateOf, type OrderDoc } from './projections/orders.js';
import type { SpendableBalances } from '../chain/port.js';
import { allocateFunding, type Funding, type FundableOrder } from '../domain/funding.js';
import { deflatePiece, deflatePieceNow, gzipMember, type DeflatedPiece } from './gzip-pieces.js';

/** A body as buffers to send one after the other, and its length in bytes. */
export interface Pieces {
  buffers: Buffer[];
  length: number;
}

export interface SolvableAnswer {
  /** The JSON array of the orders. */
  body: Pieces;
  etag: string;
  /**
   * The body gzipped (made once, at the first call). The changed segments' compression starts when the
   * answer is built, off the event loop, so that the first gzip request after a change waits for those
   * segments only.
   */
  gzipped(): Promise<Pieces>;
}

interface Built extends SolvableAnswer {
  cursor: number;
  balancesVersion: number;
  /** The answer holds while now <= validUntil (the earliest validTo among its orders). */
  validUntil: number;
}

const NAME = ordersProjection.name;

/**
 * One open order: its state, its amounts as the funding allocation takes them (made once), and its JSON in
 * the answer (UTF-8, with its SHA-256) for the available balance it was written with. A change of the
 * order's state replaces the whole entry.
 */
interface Entry {
  state: OrderState;
  fundable: FundableOrder;
  pair: Pair;
  written?: Written;
}

interface Written {
  availableBalance: bigint | null;
  json: Buffer;
  hash: Buffer;
}

/** Consecutive funded orders of the answer: their JSON joined by commas, compressed as one piece. */
interface Segment {
  orders: Written[];
  text: Buffer;
  /** SHA-256 of the orders' hashes. */
  hash: Buffer;
  /** The text compressed, started when the segment is made. */
  piece: Promise<DeflatedPiece>;
}

function oldestFirst(a: Entry, b: Entry): number {
  const x = a.state.order!;
  const y = b.state.order!;
  return x.creationDate < y.creationDate ? -1 : x.creationDate > y.creationDate ? 1 : x.uid < y.uid ? -1 : 1;
}

function fundable(state: OrderState): FundableOrder {
  const o = state.order!;
  return {
    uid: o.uid,
    owner: o.owner,
    sellToken: o.sellToken,
    kind: o.kind,
    partiallyFillable: o.partiallyFillable,
    sellAmount: BigInt(o.sellAmount),
    buyAmount: BigInt(o.buyAmount),
    feeAmount: BigInt(o.feeAmount),
    executedSellAmount: state.executed.sellAmount,
    executedBuyAmount: state.executed.buyAmount,
  };
}

/** Where `entry` goes in `ordered` (oldest first): the index of the first order not older. */
function insertionIndex(ordered: Entry[], entry: Entry): number {
  let low = 0;
  let high = ordered.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (oldestFirst(ordered[mid], entry) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/** '[', ',' and ']' as pieces, compressed once, when first needed. */
let punctuation: { open: DeflatedPiece; comma: DeflatedPiece; close: DeflatedPiece } | undefined;
const punctuationPieces = () => (punctuation ??= { open: deflatePieceNow(OPEN), comma: deflatePieceNow(COMMA), close: deflatePieceNow(CLOSE) });

/** The items with a comma between each two. */
function separated<T>(items: readonly T[], comma: T): T[] {
  const parts: T[] = [];
  for (const item of items) {
    if (parts.length > 0) parts.push(comma);
    parts.push(item);
  }
  return parts;
}

/** A segment of the answer ends after an order whose UID starts with a zero byte. */
const endsSegment = (entry: Entry) => entry.state.order!.uid.startsWith('0x00');

/** A JSON array of items written apart: its opening, its items separated by its comma, its closing. */
const asArray = <T>(items: readonly T[], open: T, comma: T, close: T): T[] => [open, ...separated(items, comma), close];

const sameOrders = (a: readonly Written[], b: readonly Written[]) => a.length === b.length && a.every((w, i) => w === b[i]);

interface Pair {
  owner: string;
  token: string;
  orders: Map<string, Entry>;
  /**
   * The funding of its orders valid from `from` to `validUntil` (the earliest validTo among them), for the
   * spendable amount it was allocated from; dropped when its orders change.
   */
  funded?: { spendable: bigint | undefined; from: number; validUntil: number; byUid: Map<string, Funding> };
}

const pairKey = (order: { owner: string; sellToken: string }) => `${order.owner}:${order.sellToken}`;

export class SolvableOrders {
  private readonly open = new Map<string, Entry>();
  /** The open orders, oldest first (the answer's order). */
  private readonly ordered: Entry[] = [];
  /** The open orders by (owner, sell token). */
  private readonly pairs = new Map<string, Pair>();
  /** Highest row position taken in. */
  private cursor = 0;
  /** The read model's checkpoint this view has caught up with. */
  private syncedTo = 0;
  /** The last refresh asked for, settled either way: the next one runs after it. */
  private refreshed: Promise<void> = Promise.resolve();
  private built: Built | undefined;
  /** The segments of the last answer, by the first order of each (funded or not). */
  private segments = new Map<Entry, Segment>();

  constructor(
    private readonly store: ReadModelStore,
    private readonly runner: ProjectionRunner,
    private readonly balances: SpendableBalances | undefined,
    /** The settlement contract (lowercase), shown on every order (presentOrder). */
    private readonly settlement: string,
  ) {}

  async start(): Promise<void> {
    this.runner.on('advanced', (name: string) => {
      // Ahead of the answers: one that fails here is tried again by the next answer, which refreshes itself.
      if (name === NAME) this.refresh().catch(() => undefined);
    });
    await this.refresh();
  }

  /** The answer at `now` (Unix seconds), current with the read model as the runner knows it. */
  async answer(now: number): Promise<SolvableAnswer> {
    if (this.syncedTo < this.runner.checkpoint(NAME)) await this.refresh();
    return this.build(now);
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
      const rows = await this.store.find<OrderDoc>(NAME, {
        where: [{ column: 'position', op: '>', value: this.cursor }],
        orderBy: [{ column: 'position' }],
      });
      let pairsChanged = false;
      for (const row of rows) {
        const state = stateOf(row.doc);
        pairsChanged = this.remove(row.key) || pairsChanged;
        if (solvableByEvents(state)) pairsChanged = this.add(row.key, state) || pairsChanged;
        if (row.position > this.cursor) this.cursor = row.position;
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
    // New orders are the newest: most go at the end.
    const last = this.ordered.at(-1);
    if (!last || oldestFirst(last, entry) < 0) this.ordered.push(entry);
    else this.ordered.splice(insertionIndex(this.ordered, entry), 0, entry);
    return !known;
  }

  /** Removes an order if open; true when that leaves its pair without orders. */
  private remove(uid: string): boolean {
    const entry = this.open.get(uid);
    if (!entry) return false;
    this.open.delete(uid);
    this.ordered.splice(insertionIndex(this.ordered, entry), 1);
    const pair = entry.pair;
    pair.orders.delete(uid);
    pair.funded = undefined;
    if (pair.orders.size > 0) return false;
    this.pairs.delete(pairKey(entry.state.order!));
    return true;
  }

  /** The order's JSON in the answer: the one written before, unless its available balance changed. */
  private written(entry: Entry, now: number, availableBalance: bigint | null): Written {
    if (entry.written?.availableBalance === availableBalance) return entry.written;
    const json = Buffer.from(JSON.stringify(presentOrder(entry.state, now, this.settlement, availableBalance)!));
    return (entry.written = { availableBalance, json, hash: createHash('sha256').update(json).digest() });
  }

  private build(now: number): Built {
    const balancesVersion = this.balances?.version ?? 0;
    const b = this.built;
    if (b && b.cursor === this.cursor && b.balancesVersion === balancesVersion && now <= b.validUntil) return b;

    // An expired order never becomes valid again: forget it, and stop reading its owner's balance.
    let pairsGone = false;
    for (const [uid, entry] of this.open) {
      if (entry.state.order!.validTo < now) pairsGone = this.remove(uid) || pairsGone;
    }
    if (pairsGone) this.trackBalances();
    for (const pair of this.pairs.values()) this.fundingOfPair(pair, now);

    const segments = new Map<Entry, Segment>();
    let first: Entry | undefined;
    let orders: Written[] = [];
    let validUntil = Number.MAX_SAFE_INTEGER;
    const endSegment = () => {
      if (first && orders.length > 0) segments.set(first, this.segment(first, orders));
      first = undefined;
      orders = [];
    };
    for (const entry of this.ordered) {
      first ??= entry;
      const f = entry.pair.funded!.byUid.get(entry.state.order!.uid)!;
      if (f.funded) {
        orders.push(this.written(entry, now, f.availableBalance));
        validUntil = Math.min(validUntil, entry.state.order!.validTo);
      }
      if (endsSegment(entry)) endSegment();
    }
    endSegment();
    this.segments = segments;

    const kept = [...segments.values()];
    const body = asArray(kept.map((segment) => segment.text), OPEN, COMMA, CLOSE);
    // The ETag hashes the segments' hashes, themselves of the orders' hashes, in answer order: the same
    // answer gives the same ETag on every instance.
    const tag = createHash('sha256');
    for (const segment of kept) tag.update(segment.hash);
    const etag = `"${tag.digest('base64url').slice(0, 27)}"`;
    let gzipped: Promise<Pieces> | undefined;
    this.built = {
      body: { buffers: body, length: body.reduce((sum, buffer) => sum + buffer.length, 0) },
      etag,
      gzipped: () => (gzipped ??= this.gzipped(kept)),
      cursor: this.cursor,
      balancesVersion,
      validUntil,
    };
    return this.built;
  }

  /** The segment starting at `first` with these orders: the last answer's, unless its orders changed. */
  private segment(first: Entry, orders: Written[]): Segment {
    const previous = this.segments.get(first);
    if (previous && sameOrders(previous.orders, orders)) return previous;
    const hash = createHash('sha256');
    for (const order of orders) hash.update(order.hash);
    const text = Buffer.concat(separated(orders.map((order) => order.json), COMMA));
    const piece = deflatePiece(text);
    // A client may never ask for the gzipped answer: a failed compression is then nobody's to hear.
    piece.catch(() => undefined);
    return { orders, text, hash: hash.digest(), piece };
  }

  /** The answer gzipped, once the segments' pieces are compressed. */
  private async gzipped(segments: readonly Segment[]): Promise<Pieces> {
    const { open, comma, close } = punctuationPieces();
    const pieces = await Promise.all(segments.map((segment) => segment.piece));
    return gzipMember(asArray(pieces, open, comma, close));
  }
}
