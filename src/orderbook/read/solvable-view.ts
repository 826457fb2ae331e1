/**
 * GET /api/v1/solvable_orders, served from the `orders` read model and never recomputed per request. The
 * orders solvable by events are kept in memory, refreshed from the rows that changed since the last
 * refresh (by position; the read model is `followed`); what depends on time (validTo) and on the chain (balances) is applied
 * when the answer is built, and the built answer (its bytes and ETag) is reused until the read model
 * advances, a balance changes, or its earliest order expires.
 *
 * The funding of one order (GET /orders) depends only on the open orders of the same owner and sell token,
 * so it is allocated for that pair alone, not by building the whole answer.
 */
import { createHash } from 'node:crypto';
import type { ReadModelStore } from './models/types.js';
import type { ProjectionRunner } from './runner.js';
import type { Order } from '../../generated/orderbook/order.js';
import { orderView, presentOrder, type OrderState } from '../write/order-state.js';
import { ordersProjection, solvableByEvents, stateOf, type OrderDoc } from './projections/orders.js';
import type { SpendableBalances } from '../chain/port.js';
import { allocateFunding, type Funding, type FundableOrder } from '../domain/funding.js';

export interface SolvableAnswer {
  body: Buffer;
  etag: string;
}

interface Built extends SolvableAnswer {
  cursor: number;
  balancesVersion: number;
  /** The answer holds while now <= validUntil (the earliest validTo among its orders). */
  validUntil: number;
}

const NAME = ordersProjection.name;

function oldestFirst(a: OrderState, b: OrderState): number {
  const x = a.order!;
  const y = b.order!;
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

interface Pair {
  owner: string;
  token: string;
  orders: Map<string, OrderState>;
}

const pairKey = (order: { owner: string; sellToken: string }) => `${order.owner}:${order.sellToken}`;

export class SolvableOrders {
  private readonly open = new Map<string, OrderState>();
  /** The open orders by (owner, sell token). */
  private readonly pairs = new Map<string, Pair>();
  /** Funding allocated per pair, for one (cursor, balances version, now). */
  private pairFunding = { at: '', byPair: new Map<string, Map<string, Funding>>() };
  /** Highest row position taken in. */
  private cursor = 0;
  /** The read model's checkpoint this view has caught up with. */
  private syncedTo = 0;
  private syncing: Promise<void> | undefined;
  private built: Built | undefined;

  constructor(
    private readonly store: ReadModelStore,
    private readonly runner: ProjectionRunner,
    private readonly balances: SpendableBalances | undefined,
    /** The settlement contract (lowercase), shown on every order (presentOrder). */
    private readonly settlement: string,
  ) {}

  async start(): Promise<void> {
    this.runner.on('advanced', (name: string) => {
      if (name === NAME) void this.refresh();
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
    const state = this.open.get(uid);
    if (!state || state.order!.validTo < now) return undefined;
    const at = `${this.cursor}:${this.balances?.version ?? 0}:${now}`;
    if (this.pairFunding.at !== at) this.pairFunding = { at, byPair: new Map() };
    const key = pairKey(state.order!);
    let funding = this.pairFunding.byPair.get(key);
    if (!funding) {
      const valid = [...this.pairs.get(key)!.orders.values()].filter((s) => s.order!.validTo >= now).sort(oldestFirst);
      funding = this.allocate(valid);
      this.pairFunding.byPair.set(key, funding);
    }
    return funding.get(uid);
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
    const previous = this.syncing ?? Promise.resolve();
    const next = previous.then(run);
    this.syncing = next.finally(() => {
      if (this.syncing === next) this.syncing = undefined;
    });
    return next;
  }

  /** The balances to keep current at every block: those of the open orders' owners and sell tokens. */
  private trackBalances(): void {
    this.balances?.track([...this.pairs.values()].map((p) => [p.owner, p.token] as const));
  }

  /** Adds an open order; true when its pair is new. */
  private add(uid: string, state: OrderState): boolean {
    this.open.set(uid, state);
    const key = pairKey(state.order!);
    const pair = this.pairs.get(key);
    if (pair) {
      pair.orders.set(uid, state);
      return false;
    }
    this.pairs.set(key, { owner: state.order!.owner, token: state.order!.sellToken, orders: new Map([[uid, state]]) });
    return true;
  }

  /** Removes an order if open; true when that leaves its pair without orders. */
  private remove(uid: string): boolean {
    const state = this.open.get(uid);
    if (!state) return false;
    this.open.delete(uid);
    const key = pairKey(state.order!);
    const pair = this.pairs.get(key)!;
    pair.orders.delete(uid);
    if (pair.orders.size > 0) return false;
    this.pairs.delete(key);
    return true;
  }

  /** Funding of `orders` (oldest first) from the spendable amounts known now. */
  private allocate(orders: OrderState[]): Map<string, Funding> {
    return allocateFunding(orders.map(fundable), (owner, token) => this.balances?.get(owner, token));
  }

  private build(now: number): Built {
    const balancesVersion = this.balances?.version ?? 0;
    const b = this.built;
    if (b && b.cursor === this.cursor && b.balancesVersion === balancesVersion && now <= b.validUntil) return b;

    // An expired order never becomes valid again: forget it, and stop reading its owner's balance.
    let pairsGone = false;
    for (const [uid, state] of this.open) {
      if (state.order!.validTo < now) pairsGone = this.remove(uid) || pairsGone;
    }
    if (pairsGone) this.trackBalances();
    const valid = [...this.open.values()].sort(oldestFirst);
    const funding = this.allocate(valid);
    const orders: Order[] = [];
    let validUntil = Number.MAX_SAFE_INTEGER;
    for (const state of valid) {
      const f = funding.get(state.order!.uid)!;
      if (!f.funded) continue;
      orders.push(presentOrder(orderView(state, now, f.availableBalance)!, this.settlement));
      validUntil = Math.min(validUntil, state.order!.validTo);
    }
    const body = Buffer.from(JSON.stringify(orders));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    this.built = { body, etag, cursor: this.cursor, balancesVersion, validUntil };
    return this.built;
  }
}
