/**
 * GET /api/v1/solvable_orders, served from the `solvable_orders` read model and never recomputed per
 * request. The orders solvable by events are kept in memory, refreshed from the rows that changed since
 * the last refresh (by position); what depends on time (validTo) and on the chain (balances) is applied
 * when the answer is built, and the built answer (its bytes and ETag) is reused until the read model
 * advances, a balance changes, or its earliest order expires.
 */
import { createHash } from 'node:crypto';
import type { ReadModelStore } from '../readmodels/types.js';
import type { ProjectionRunner } from '../readmodels/runner.js';
import type { Order } from '../generated/orderbook/order.js';
import { orderView, stateFromFacts, type OrderState } from './commands/order-state.js';
import { solvableByEvents, solvableOrdersProjection } from '../../projections/solvable-orders.js';
import type { OrderDoc } from '../../projections/orders.js';
import type { SpendableBalances } from './chain-context.js';
import { allocateFunding, type Funding, type FundableOrder } from './domain/funding.js';

export interface SolvableAnswer {
  body: Buffer;
  etag: string;
  count: number;
}

interface Built extends SolvableAnswer {
  cursor: number;
  balancesVersion: number;
  /** The answer holds while now <= validUntil (the earliest validTo among its orders). */
  validUntil: number;
  funding: Map<string, Funding>;
}

const NAME = solvableOrdersProjection.name;

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

export class SolvableOrders {
  private readonly open = new Map<string, OrderState>();
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
    return this.build(now).funding.get(uid);
  }

  private refresh(): Promise<void> {
    // One refresh at a time; a caller arriving during one waits for the next, which sees its rows.
    const run = async () => {
      const checkpoint = await this.store.checkpoint(NAME);
      const rows = await this.store.find<OrderDoc>(NAME, {
        where: [{ column: 'position', op: '>', value: this.cursor }],
        orderBy: [{ column: 'position' }],
      });
      for (const row of rows) {
        const state = stateFromFacts(row.doc);
        if (solvableByEvents(state)) this.open.set(row.key, state);
        else this.open.delete(row.key);
        if (row.position > this.cursor) this.cursor = row.position;
      }
      this.syncedTo = Math.max(this.syncedTo, checkpoint);
      if (rows.length > 0) this.trackBalances();
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
    this.balances?.track([...this.open.values()].map((s) => [s.order!.owner, s.order!.sellToken] as const));
  }

  private build(now: number): Built {
    const balancesVersion = this.balances?.version ?? 0;
    const b = this.built;
    if (b && b.cursor === this.cursor && b.balancesVersion === balancesVersion && now <= b.validUntil) return b;

    // An expired order never becomes valid again: forget it, and stop reading its owner's balance.
    let expired = false;
    for (const [uid, state] of this.open) {
      if (state.order!.validTo >= now) continue;
      this.open.delete(uid);
      expired = true;
    }
    if (expired) this.trackBalances();
    const valid = [...this.open.values()].sort(oldestFirst);
    const funding = allocateFunding(valid.map(fundable), (owner, token) => this.balances?.get(owner, token));
    const orders: Order[] = [];
    let validUntil = Number.MAX_SAFE_INTEGER;
    for (const state of valid) {
      const f = funding.get(state.order!.uid)!;
      if (!f.funded) continue;
      orders.push(orderView(state, now, f.availableBalance)!);
      validUntil = Math.min(validUntil, state.order!.validTo);
    }
    const body = Buffer.from(JSON.stringify(orders));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    this.built = { body, etag, count: orders.length, cursor: this.cursor, balancesVersion, validUntil, funding };
    return this.built;
  }
}
