/**
 * The order book's use cases, one method per endpoint: commands go through the deciders and the event
 * store (waiting until the read models show their events, so a client reads its own writes), queries read
 * the read models. HTTP lives in api/, the chain behind ChainContext.
 */
import type { EventStore, StoredEvent } from '../eventstore/types.js';
import type { ReadModelStore, Condition } from '../readmodels/types.js';
import type { ProjectionRunner } from '../readmodels/runner.js';
import { digestReadModel, type Digest } from '../readmodels/digest.js';
import type { OrderbookConfig } from '../config.js';
import type { Order } from '../generated/orderbook/order.js';
import type { Trade } from '../generated/orderbook/trade.js';
import type { FeeInformation } from '../generated/orderbook/fee-information.js';
import type { Eip712DomainInfo } from '../generated/orderbook/domain.js';
import type { ProjectionsStatus } from '../generated/orderbook/projections-status.js';
import { DOMAIN_NAME, DOMAIN_VERSION, domainSeparator, gpv2Domain } from './domain/eip712.js';
import {
  validateOrderCreation,
  checkFee,
  checkBalance,
  parseOrderUid,
  type OrderValidationContext,
  type ValidatedOrder,
} from './domain/order.js';
import { verifyCancellation } from './domain/cancellation.js';
import { orderbookErrors } from './domain/errors.js';
import { orderView, stateFromFacts } from './commands/order-state.js';
import { orderStreamId } from './commands/events.js';
import { handleOrderCommand } from './command-handler.js';
import { SolvableOrders } from './solvable-orders.js';
import type { ChainContext } from './chain-context.js';
import type { OrderDoc } from '../../projections/orders.js';

export interface OrdersFilter {
  owner?: string;
  sellToken?: string;
  buyToken?: string;
  includeFullyExecuted: boolean;
  includeInvalidated: boolean;
  includeInsufficientBalance: boolean;
  /** Unix seconds; default now. */
  minValidTo?: number;
}

export interface TradesFilter {
  owner?: string;
  orderUid?: string;
  offset: number;
  limit: number;
}

/** Runs validateOrderCreation somewhere (validation/pool.ts: on worker threads). */
export interface OrderValidator {
  validate(body: unknown, context: OrderValidationContext): Promise<ValidatedOrder>;
}

export interface OrderBookParts {
  events: EventStore;
  readModels: ReadModelStore;
  runner: ProjectionRunner;
  chain: ChainContext;
  config: OrderbookConfig;
  /** Where orders are validated; on the event loop when absent. */
  validator?: OrderValidator;
  /** Milliseconds since the epoch; tests may move time. */
  clock?: () => number;
}

export class OrderBook {
  readonly domainSeparator: string;
  readonly solvable: SolvableOrders;
  private readonly clock: () => number;
  private readonly digests = new Map<string, Digest>();

  constructor(private readonly parts: OrderBookParts) {
    this.clock = parts.clock ?? Date.now;
    this.domainSeparator = domainSeparator(gpv2Domain(parts.chain.chainId, parts.chain.settlement));
    this.solvable = new SolvableOrders(parts.readModels, parts.runner, parts.chain.balances);
  }

  async start(): Promise<void> {
    await this.solvable.start();
  }

  /** Now in Unix seconds, the unit of validTo. */
  now(): number {
    return Math.floor(this.clock() / 1000);
  }

  domain(): Eip712DomainInfo {
    const { chainId, settlement, vaultRelayer } = this.parts.chain;
    return {
      name: DOMAIN_NAME,
      version: DOMAIN_VERSION,
      chainId,
      verifyingContract: settlement.toLowerCase(),
      domainSeparator: this.domainSeparator,
      ...(vaultRelayer ? { vaultRelayer: vaultRelayer.toLowerCase() } : {}),
    };
  }

  /** POST /api/v1/orders: the new order's UID. */
  async placeOrder(body: unknown): Promise<string> {
    const { chain, config, validator } = this.parts;
    const context = { domainSeparator: this.domainSeparator, now: this.now(), minValidToSeconds: config.minValidToSeconds };
    const order = validator ? await validator.validate(body, context) : validateOrderCreation(body, context);
    if (order.signingScheme === 'eip1271' && !(await chain.eip1271(order.owner, order.digest, order.signature))) {
      throw orderbookErrors.invalidEip1271Signature(order.digest);
    }
    const minimalFee = await chain.fees.minimalFee(order.sellToken);
    if (minimalFee !== null) checkFee(order, minimalFee, config.feeRatioBps);
    if (order.signingScheme !== 'presign') {
      checkBalance(order, await chain.balances.fetch(order.owner, order.sellToken));
    }
    const creationDate = new Date(this.clock()).toISOString();
    const { position } = await handleOrderCommand(this.parts.events, {
      type: 'CreateOrder',
      data: { order, creationDate },
    });
    if (position !== null) await this.parts.runner.waitFor(position);
    return order.uid;
  }

  /** DELETE /api/v1/orders/{UID}. */
  async cancelOrder(uidParam: string, body: unknown): Promise<void> {
    const uid = parseOrderUid(uidParam);
    const cancellation = verifyCancellation(body, this.domainSeparator, uid);
    const { position } = await handleOrderCommand(this.parts.events, {
      type: 'CancelOrder',
      data: { uid, cancellation, cancelledAt: new Date(this.clock()).toISOString() },
    });
    if (position !== null) await this.parts.runner.waitFor(position);
  }

  /** GET /api/v1/orders/{UID}. */
  async order(uidParam: string): Promise<Order> {
    const uid = parseOrderUid(uidParam);
    const row = await this.parts.readModels.get<OrderDoc>('orders', uid);
    if (!row?.doc.order) throw orderbookErrors.orderNotFound();
    const now = this.now();
    const funding = await this.solvable.fundingOf(uid, now);
    return orderView(stateFromFacts(row.doc), now, funding?.availableBalance ?? null)!;
  }

  /** GET /api/v1/orders. */
  async orders(filter: OrdersFilter): Promise<Order[]> {
    const now = this.now();
    const where: Condition[] = [
      { column: 'known', op: '=', value: true },
      { column: 'valid_to', op: '>=', value: filter.minValidTo ?? now },
    ];
    if (filter.owner) where.push({ column: 'owner', op: '=', value: filter.owner });
    if (filter.sellToken) where.push({ column: 'sell_token', op: '=', value: filter.sellToken });
    if (filter.buyToken) where.push({ column: 'buy_token', op: '=', value: filter.buyToken });
    if (!filter.includeFullyExecuted) where.push({ column: 'fully_executed', op: '=', value: false });
    if (!filter.includeInvalidated) where.push({ column: 'invalidated', op: '=', value: false });
    const rows = await this.parts.readModels.find<OrderDoc>('orders', {
      where,
      orderBy: [{ column: 'created_at' }, { column: 'id' }],
    });
    const orders: Order[] = [];
    for (const row of rows) {
      const funding = await this.solvable.fundingOf(row.key, now);
      if (funding && !funding.funded && !filter.includeInsufficientBalance) continue;
      orders.push(orderView(stateFromFacts(row.doc), now, funding?.availableBalance ?? null)!);
    }
    return orders;
  }

  /** GET /api/v1/tokens/{sellToken}/fee. */
  async feeQuote(token: string): Promise<FeeInformation> {
    if (!/^0x[0-9a-fA-F]{40}$/.test(token)) {
      throw orderbookErrors.invalidOrderData(`sellToken "${token.slice(0, 60)}" is not an address (0x + 40 hex digits)`);
    }
    const quote = await this.parts.chain.fees.quote(token.toLowerCase());
    if (!quote) throw orderbookErrors.notFound(`a price for token ${token.toLowerCase()}`);
    return quote;
  }

  /** GET /api/v1/trades. */
  async trades(filter: TradesFilter): Promise<Trade[]> {
    const where: Condition[] = [];
    if (filter.owner) where.push({ column: 'owner', op: '=', value: filter.owner });
    if (filter.orderUid) where.push({ column: 'order_uid', op: '=', value: filter.orderUid });
    const rows = await this.parts.readModels.find<Trade>('trades', {
      where,
      orderBy: [{ column: 'block_number' }, { column: 'log_index' }],
      limit: filter.limit,
      offset: filter.offset,
    });
    return rows.map((r) => r.doc);
  }

  /** GET /api/v1/orders/{UID}/events: the order's history, oldest first. */
  async orderEvents(uidParam: string): Promise<StoredEvent[]> {
    const events = await this.parts.events.readStream(orderStreamId(parseOrderUid(uidParam)));
    if (events.length === 0) throw orderbookErrors.orderNotFound();
    return events;
  }

  /** GET /api/v1/events: the global log, a page at a time. */
  log(after: number, limit: number): Promise<StoredEvent[]> {
    return this.parts.events.readAll(after, limit);
  }

  /** GET /api/v1/projections: checkpoints and digests, to compare with a replay. */
  async projections(): Promise<ProjectionsStatus> {
    const result: ProjectionsStatus = { head: await this.parts.events.head(), projections: {} };
    for (const projection of this.parts.runner.projections) {
      // A digest reads every document: reuse it while the read model has not moved.
      const position = await this.parts.readModels.checkpoint(projection.name);
      let digest = this.digests.get(projection.name);
      if (!digest || digest.position !== position) {
        digest = await digestReadModel(this.parts.readModels, projection.name);
        this.digests.set(projection.name, digest);
      }
      result.projections[projection.name] = { version: projection.version, ...digest };
    }
    return result;
  }
}
