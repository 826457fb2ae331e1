/**
 * The order book's use cases, one method per endpoint: commands go through the deciders and the event
 * store (waiting until the read models show their events, so a client reads its own writes), queries read
 * the read models. HTTP lives in api/, the chain behind ChainContext.
 */
import type { EventStore, StoredEvent } from './store/types.js';
import type { QuoteStore } from './store/quote-store.js';
import type { ReadModelStore, Condition, Query } from './read/models/types.js';
import type { ProjectionRunner } from './read/runner.js';
import { DigestCache, digestsInProcess, type DigestComputation } from './read/digest-cache.js';
import type { OrderbookConfig } from '../generated/config.js';
import type { Order } from '../generated/orderbook/order.js';
import type { Trade } from '../generated/orderbook/trade.js';
import type { FeeInformation } from '../generated/orderbook/fee-information.js';
import type { Eip712DomainInfo } from '../generated/orderbook/domain.js';
import type { ProjectionsStatus } from '../generated/orderbook/projections-status.js';
import { DOMAIN_NAME, DOMAIN_VERSION, domainSeparator, gpv2Domain } from './domain/eip712.js';
import {
  validateOrderCreation,
  checkFee,
  paysSignedFee,
  checkBalance,
  canFund,
  parseOrderUid,
  type OrderValidationContext,
  type ValidatedOrder,
} from './domain/order.js';
import { verifyCancellation } from './domain/cancellation.js';
import { orderbookErrors } from './domain/errors.js';
import { orderStreamId } from './write/events.js';
import { handleOrderCommand } from './write/command-handler.js';
import { SolvableOrders } from './read/solvable-view.js';
import type { Funding } from './domain/funding.js';
import type { ChainContext } from './chain/port.js';
import { stateOf, type OrderDoc } from './read/projections/orders.js';
import type { CompetitionOrderStatus } from '../generated/orderbook/competition-order-status.js';
import type { Auction } from '../generated/orderbook/auction.js';
import type { AuctionOrder } from '../generated/orderbook/auction-order.js';
import type { StoredOrderQuote } from '../generated/orderbook/stored-order-quote.js';
import { normalizeOrderBody } from './domain/app-data.js';
import { orderClass, priceNumber } from './domain/quote.js';
import { checkValidToCap } from './domain/validity.js';
import { verifyCancellations } from './domain/cancellation.js';
import { foldOrderEvents, presentOrder, status as orderStatus } from './write/order-state.js';
import { parseOrderEvent } from './write/events.js';
import { decideCancelOrder } from './write/cancel-order.js';
import type { OrderExtras } from './write/create-order.js';
import { AppDataRegistry } from './app-data-registry.js';
import type { OrderCursor } from './read/order-cursor.js';
import { Quotes, type StoredQuote } from './quotes.js';
import { createHash } from 'node:crypto';

/** GET /api/v1/users/{address}/total_surplus sums over at most this many of the owner's newest trades. */
export const TOTAL_SURPLUS_MAX_TRADES = 1000;

export interface OrdersFilter {
  owner?: string;
  sellToken?: string;
  buyToken?: string;
  includeFullyExecuted: boolean;
  includeInvalidated: boolean;
  includeInsufficientBalance: boolean;
  /** Unix seconds; default now. */
  minValidTo?: number;
  /** Orders read for the page (those the include flags leave out are read, not listed). */
  limit: number;
  /** Where the page starts: after this order of the listing's order. */
  after?: OrderCursor;
}

/** A page of GET /api/v1/orders and, when there may be more, where the next one starts. */
export interface OrdersPage {
  orders: Order[];
  next: OrderCursor | null;
}

export interface PageFilter {
  offset: number;
  limit: number;
}

/** One entry of POST /api/v1/orders/by_uids. */
export type OrderOrError = { order: Order } | { error: { uid: string; description: string } };

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
  /** Where quotes live until they expire (in the log's database, not in the log). */
  quoteStore: QuoteStore;
  readModels: ReadModelStore;
  runner: ProjectionRunner;
  chain: ChainContext;
  config: OrderbookConfig;
  /** Where orders are validated; on the event loop when absent. */
  validator?: OrderValidator;
  /** Milliseconds since the epoch; tests may move time. */
  clock?: () => number;
  /** How GET /api/v1/projections computes digests: in a worker thread (index.ts); on the event loop when absent. */
  digests?: DigestComputation;
}

export class OrderBook {
  readonly domainSeparator: string;
  /** The settlement contract, lowercase, as every order shows it. */
  private readonly settlement: string;
  readonly solvable: SolvableOrders;
  readonly appData: AppDataRegistry;
  readonly quotes: Quotes;
  private readonly clock: () => number;
  private readonly digests: DigestCache;

  constructor(private readonly parts: OrderBookParts) {
    this.clock = parts.clock ?? Date.now;
    this.domainSeparator = domainSeparator(gpv2Domain(parts.chain.chainId, parts.chain.settlement));
    this.settlement = parts.chain.settlement.toLowerCase();
    this.solvable = new SolvableOrders(parts.readModels, parts.runner, parts.chain.balances, this.settlement);
    this.appData = new AppDataRegistry(parts.events, this.clock);
    this.quotes = new Quotes(parts.quoteStore, parts.chain, parts.config, this.clock);
    this.digests = new DigestCache(
      parts.digests ?? digestsInProcess(parts.readModels),
      parts.runner.projections.map((p) => p.name),
    );
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

  /**
   * POST /api/v1/orders: the new order's UID. Takes the seed's OrderCreation and today's (appData as the
   * document or the hash, appDataHash, quoteId; fields it does not know are ignored). An order naming a
   * An order signing feeAmount 0 is accepted with or without a quote (the fee is in the price; class
   * market within its quote, else limit); a non-zero feeAmount is held to the seed's minimal fee.
   */
  async placeOrder(raw: unknown): Promise<string> {
    const { chain, config, validator } = this.parts;
    const { body, fullAppData, quoteId } = normalizeOrderBody(raw);
    const context = { domainSeparator: this.domainSeparator, now: this.now(), minValidToSeconds: config.minValidToSeconds };
    const order = validator ? await validator.validate(body, context) : validateOrderCreation(body, context);
    const quote = quoteId === null ? null : await this.quotes.find(quoteId);
    if (quoteId !== null && !quote) throw orderbookErrors.quoteNotFound(quoteId);
    if (quote && (quote.sellToken !== order.sellToken || quote.buyToken !== order.buyToken || quote.kind !== order.kind)) {
      throw orderbookErrors.invalidQuote(`quote ${quoteId} is for another pair or kind than the order`);
    }
    const orderClassOf = orderClass(order, quote && { sellAmount: BigInt(quote.sellAmount), buyAmount: BigInt(quote.buyAmount) });
    checkValidToCap(order, orderClassOf, context.now, { maxMarketSeconds: config.maxMarketOrderValiditySeconds, maxLimitSeconds: config.maxLimitOrderValiditySeconds });
    if (order.signingScheme === 'eip1271' && !(await chain.eip1271(order.owner, order.digest, order.signature))) {
      throw orderbookErrors.invalidEip1271Signature(order.digest);
    }
    if (paysSignedFee(order)) {
      const minimalFee = await chain.fees.minimalFee(order.sellToken);
      if (minimalFee !== null) checkFee(order, minimalFee, config.feeRatioBps);
    }
    if (order.signingScheme !== 'presign') {
      // An amount read at the newest head the head source reported decides at once when it funds the order.
      // One that does not is read again at the node's newest block before the order is refused: the owner
      // may have been funded in a block not reported yet.
      const atHead = chain.balances.atHead(order.owner, order.sellToken);
      if (atHead === undefined || !canFund(order, atHead)) checkBalance(order, await chain.balances.fetch(order.owner, order.sellToken));
    }
    if (fullAppData !== null) await this.appData.register(order.appData, fullAppData);
    const creationDate = new Date(this.clock()).toISOString();
    const { position } = await handleOrderCommand(this.parts.events, {
      type: 'CreateOrder',
      data: { order, creationDate, extras: this.extrasOf(order, fullAppData ?? (await this.appData.documentOf(order.appData)), quote) },
    });
    if (position !== null) await this.parts.runner.waitFor(position);
    return order.uid;
  }

  /** What today's API records with an order (nothing for a seed order without app data or quote). */
  private extrasOf(order: ValidatedOrder, fullAppData: string | null, quote: StoredQuote | null): OrderExtras {
    const extras: OrderExtras = {};
    if (fullAppData !== null) extras.fullAppData = fullAppData;
    if (quote) {
      const stored: StoredOrderQuote = {
        gasAmount: quote.gasAmount,
        gasPrice: quote.gasPrice,
        sellTokenPrice: quote.sellTokenPrice,
        sellAmount: quote.sellAmount,
        buyAmount: quote.buyAmount,
        feeAmount: quote.feeAmount,
        solver: '0x' + '00'.repeat(20),
        verified: false,
      };
      extras.quoteId = quote.id;
      extras.quote = stored;
      extras.class = orderClass(order, { sellAmount: BigInt(quote.sellAmount), buyAmount: BigInt(quote.buyAmount) });
    }
    return extras;
  }

  /** The order of a read model row at `now`, presented. */
  private async view(row: { key: string; doc: OrderDoc }, now: number): Promise<Order | null> {
    return this.present(row, now, await this.solvable.fundingOf(row.key, now));
  }

  /** The order of a read model row at `now` with its funding, as today's API shows it. */
  private present(row: { doc: OrderDoc }, now: number, funding: Funding | undefined): Order | null {
    return presentOrder(stateOf(row.doc), now, this.settlement, funding?.availableBalance ?? null);
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
    return (await this.view(row, this.now()))!;
  }

  /**
   * GET /api/v1/orders: oldest first (creation time, then UID), `filter.limit` rows read after the cursor:
   * a bounded read whatever the book holds. A page whose rows the include flags thin out is shorter; the
   * next cursor follows the last row read, and is given whenever the page read as many rows as it could.
   */
  async orders(filter: OrdersFilter): Promise<OrdersPage> {
    const now = this.now();
    const rows = await this.parts.readModels.find<OrderDoc>('orders', ordersQuery(filter, now));
    const orders: Order[] = [];
    for (const row of rows) {
      const funding = await this.solvable.fundingOf(row.key, now);
      if (funding && !funding.funded && !filter.includeInsufficientBalance) continue;
      orders.push(this.present(row, now, funding)!);
    }
    const last = rows.at(-1);
    const next = rows.length === filter.limit && last?.doc.order ? { createdAt: last.doc.order.creationDate, uid: last.key } : null;
    return { orders, next };
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
    const rows = await this.parts.readModels.find<Trade>('trades', tradesQuery(filter, 'oldest'));
    return rows.map((r) => r.doc);
  }

  /**
   * DELETE /api/v1/orders: cancels up to 128 orders signed together (OrderCancellations), all or nothing:
   * every order is decided first (OrderNotFound 404, WrongOwner 401, AlreadyCancelled, ...) and nothing is
   * appended unless all can be cancelled; then each order's stream gets its own OrderCancelled (bulk).
   */
  async cancelOrders(body: unknown): Promise<void> {
    const { uids, cancellation } = verifyCancellations(body, this.domainSeparator);
    const cancelledAt = new Date(this.clock()).toISOString();
    const command = (uid: string) => ({ type: 'CancelOrder' as const, data: { uid, cancellation, cancelledAt, bulk: true } });
    for (const uid of uids) {
      const stored = await this.parts.events.readStream(orderStreamId(uid));
      decideCancelOrder(command(uid), foldOrderEvents(stored.map(parseOrderEvent)));
    }
    let last: number | null = null;
    for (const uid of uids) {
      const { position } = await handleOrderCommand(this.parts.events, command(uid));
      if (position !== null) last = position;
    }
    if (last !== null) await this.parts.runner.waitFor(last);
  }

  /** POST /api/v1/orders/by_uids: the known orders among up to 128 UIDs (unknown ones are left out, as the reference does). */
  async ordersByUids(uids: string[]): Promise<OrderOrError[]> {
    const now = this.now();
    const out: OrderOrError[] = [];
    for (const uid of new Set(uids.map((u) => u.toLowerCase()))) {
      const row = await this.parts.readModels.get<OrderDoc>('orders', uid);
      if (!row?.doc.order) continue;
      out.push({ order: (await this.view(row, now))! });
    }
    return out;
  }

  /**
   * GET /api/v1/orders/{UID}/status. No solver competition runs here: an open order solvers can settle
   * (funded, presigned where presign) is active, an open one they cannot yet is open, a fulfilled one
   * traded, a cancelled or expired one cancelled.
   */
  async competitionStatus(uidParam: string): Promise<CompetitionOrderStatus> {
    const uid = parseOrderUid(uidParam);
    const row = await this.parts.readModels.get<OrderDoc>('orders', uid);
    if (!row?.doc.order) throw orderbookErrors.orderNotFound();
    const now = this.now();
    switch (orderStatus(stateOf(row.doc), now)) {
      case 'fulfilled':
        return { type: 'traded' };
      case 'cancelled':
      case 'expired':
        return { type: 'cancelled' };
      case 'presignaturePending':
        return { type: 'open' };
      default: {
        const funding = await this.solvable.fundingOf(uid, now);
        return { type: funding?.funded ? 'active' : 'open' };
      }
    }
  }

  /** GET /api/v1/account/{owner}/orders: every order of the owner, newest first, a page at a time. */
  async accountOrders(owner: string, page: PageFilter): Promise<Order[]> {
    const rows = await this.parts.readModels.find<OrderDoc>('orders', {
      where: [
        { column: 'known', op: '=', value: true },
        { column: 'owner', op: '=', value: owner },
      ],
      orderBy: [{ column: 'created_at', desc: true }, { column: 'id', desc: true }],
      limit: page.limit,
      offset: page.offset,
    });
    const now = this.now();
    const orders: Order[] = [];
    for (const row of rows) orders.push((await this.view(row, now))!);
    return orders;
  }

  /** GET /api/v2/trades: newest first, with txHash only. */
  async tradesV2(filter: TradesFilter): Promise<Trade[]> {
    const rows = await this.parts.readModels.find<Trade>('trades', tradesQuery(filter, 'newest'));
    return rows.map(({ doc: { transactionHash: _, ...trade } }) => trade);
  }

  /** GET /api/v1/transactions/{txHash}/orders: the orders the settlement transaction traded, in trade order. */
  async transactionOrders(txHash: string): Promise<Order[]> {
    const trades = await this.parts.readModels.find<Trade>('trades', {
      where: [{ column: 'tx_hash', op: '=', value: txHash }],
      orderBy: [{ column: 'log_index' }],
    });
    const known = await this.ordersByUids(trades.map((t) => t.doc.orderUid));
    return known.flatMap((entry) => ('order' in entry ? [entry.order] : []));
  }

  /** GET /api/v1/token/{token}/native_price: native token atoms per atom; NoLiquidity (404) when unpriced. */
  async nativePrice(token: string): Promise<{ price: number }> {
    const { price } = await this.quotes.price(token);
    return { price: priceNumber(price) };
  }

  /**
   * GET /api/v1/users/{address}/total_surplus: over the user's trades, what they got beyond their limit
   * price (sell orders: more buy token; buy orders: less sell token), in native token atoms at today's
   * prices; trades of tokens nothing prices count 0. Over the owner's newest TOTAL_SURPLUS_MAX_TRADES trades
   * at most, so that one request reads a bounded number of documents however many trades the owner made.
   */
  async totalSurplus(owner: string): Promise<{ totalSurplus: string }> {
    const trades = await this.parts.readModels.find<Trade>('trades', tradesQuery({ owner, offset: 0, limit: TOTAL_SURPLUS_MAX_TRADES }, 'newest'));
    const prices = new Map<string, { numerator: bigint; denominator: bigint } | null>();
    const priceOf = async (token: string) => {
      if (!prices.has(token)) prices.set(token, await this.quotes.price(token).then((p) => p.price, () => null));
      return prices.get(token)!;
    };
    let total = 0n;
    for (const { doc: trade } of trades) {
      const order = (await this.parts.readModels.get<OrderDoc>('orders', trade.orderUid))?.doc.order;
      if (!order) continue;
      const [sell, buy, sold, bought] = [order.sellAmount, order.buyAmount, trade.sellAmountBeforeFees, trade.buyAmount].map(BigInt);
      let surplus: bigint;
      let token: string;
      if (order.kind === 'sell') {
        surplus = bought - (buy * sold + sell - 1n) / sell;
        token = order.buyToken;
      } else {
        surplus = (sell * bought) / buy - sold;
        token = order.sellToken;
      }
      const price = await priceOf(token);
      if (surplus > 0n && price) total += (surplus * price.numerator) / price.denominator;
    }
    return { totalSurplus: total.toString() };
  }

  private auctionCache: { etag: string; body: string } | undefined;

  /** The ETag GET /api/v1/auction answers with now: the solvable set's, which the auction is built from. */
  async auctionTag(): Promise<string> {
    return (await this.solvable.answer(this.now())).etag;
  }

  /**
   * GET /api/v1/auction: the solvable orders (as solvable_orders has them), the newest block seen, and the
   * native prices of their tokens (×1e18). The id is derived from the solvable set's ETag: it changes when
   * the set does and is the same on every instance that sees the same set.
   */
  async auction(): Promise<{ etag: string; body: string }> {
    const answer = await this.solvable.answer(this.now());
    if (this.auctionCache?.etag === answer.etag) return this.auctionCache;
    const orders = (JSON.parse(Buffer.concat(answer.body.buffers).toString('utf8')) as Order[]).map(auctionOrder);
    const prices: Record<string, string> = {};
    for (const token of new Set(orders.flatMap((o) => [o.sellToken, o.buyToken]))) {
      const priced = await this.quotes.price(token).catch(() => null);
      if (priced) prices[token] = ((priced.price.numerator * 10n ** 18n) / priced.price.denominator).toString();
    }
    const id = Number.parseInt(createHash('sha256').update(answer.etag).digest('hex').slice(0, 12), 16);
    const auction: Auction = { id, block: this.parts.chain.headBlock?.() ?? 0, orders, prices };
    this.auctionCache = { etag: answer.etag, body: JSON.stringify(auction) };
    return this.auctionCache;
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
      // A digest reads every document: kept while the read model has not moved, computed off the event loop.
      const position = await this.parts.readModels.checkpoint(projection.name);
      result.projections[projection.name] = { version: projection.version, ...(await this.digests.digest(projection.name, position)) };
    }
    return result;
  }
}

/**
 * The read of one page of GET /api/v1/orders at `now`: the filters, creation order (then UID), after the
 * cursor, `limit` rows. Every filter column's index goes on by (created_at, id) (projections/orders.ts), so
 * the page is read along an index whatever the filters.
 */
export function ordersQuery(filter: OrdersFilter, now: number): Query {
  const where: Condition[] = [
    { column: 'known', op: '=', value: true },
    { column: 'valid_to', op: '>=', value: filter.minValidTo ?? now },
  ];
  if (filter.owner) where.push({ column: 'owner', op: '=', value: filter.owner });
  if (filter.sellToken) where.push({ column: 'sell_token', op: '=', value: filter.sellToken });
  if (filter.buyToken) where.push({ column: 'buy_token', op: '=', value: filter.buyToken });
  if (!filter.includeFullyExecuted) where.push({ column: 'fully_executed', op: '=', value: false });
  if (!filter.includeInvalidated) where.push({ column: 'invalidated', op: '=', value: false });
  return {
    where,
    orderBy: [{ column: 'created_at' }, { column: 'id' }],
    after: filter.after && [filter.after.createdAt, filter.after.uid],
    limit: filter.limit,
  };
}

/**
 * The read of a page of trades (GET /api/v1/trades oldest first, /api/v2/trades and total_surplus newest
 * first): by block and log index, along the index of the filter column (projections/trades.ts).
 */
export function tradesQuery(filter: TradesFilter, first: 'oldest' | 'newest'): Query {
  const where: Condition[] = [];
  if (filter.owner) where.push({ column: 'owner', op: '=', value: filter.owner });
  if (filter.orderUid) where.push({ column: 'order_uid', op: '=', value: filter.orderUid });
  const desc = first === 'newest';
  return { where, orderBy: [{ column: 'block_number', desc }, { column: 'log_index', desc }], limit: filter.limit, offset: filter.offset };
}

/** A solvable order as GET /api/v1/auction forwards it (the reference's AuctionOrder). */
function auctionOrder(order: Order): AuctionOrder {
  return {
    uid: order.uid,
    sellToken: order.sellToken,
    buyToken: order.buyToken,
    sellAmount: order.sellAmount,
    buyAmount: order.buyAmount,
    created: String(Math.floor(Date.parse(order.creationDate) / 1000)),
    validTo: order.validTo,
    kind: order.kind,
    receiver: order.receiver,
    owner: order.owner,
    partiallyFillable: order.partiallyFillable,
    executed: order.kind === 'sell' ? order.executedSellAmountBeforeFees : order.executedBuyAmount,
    preInteractions: [],
    postInteractions: [],
    sellTokenBalance: order.sellTokenBalance,
    buyTokenBalance: order.buyTokenBalance,
    class: order.class ?? 'limit',
    appData: order.appData,
    signature: order.signature,
    signingScheme: order.signingScheme,
    protocolFees: [],
    ...(order.quote ? { quote: { sellAmount: order.quote.sellAmount, buyAmount: order.quote.buyAmount, fee: order.quote.feeAmount } } : {}),
  };
}
