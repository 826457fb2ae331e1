/**
 * What the order book's use cases run on, put together once: the event store and the quote store, the read
 * models and their runner, the chain, the settings, and the views built on them (the solvable orders, the
 * digests). A record of parts, not an object with behaviour: each use case (one module per endpoint, beside
 * this file) is a plain function that takes the parts it needs, so the API calls use cases, and a use case
 * names what it touches.
 */
import type { EventStore } from '../store/types.js';
import type { QuoteStore } from '../store/quote-store.js';
import type { ReadModelStore } from '../read/models/types.js';
import { ReadModelsBehind, type ProjectionRunner } from '../read/runner.js';
import { DigestCache, digestsInProcess, type DigestComputation } from '../read/digest-cache.js';
import { SolvableOrders } from '../read/solvable-view.js';
import type { SolvableEncoding } from '../read/solvable-encoding.js';
import type { AuctionFound } from './queries/auction.js';
import type { OrderbookConfig } from '../../generated/config.js';
import type { ChainContext } from '../chain/port.js';
import type { OrderValidationContext, ValidatedOrder } from '../domain/order.js';
import { domainSeparator, gpv2Domain } from '../domain/eip712.js';

/** Runs validateOrderCreation somewhere (write/validation/pool.ts: on worker threads). */
export interface OrderValidator {
  validate(body: unknown, context: OrderValidationContext): Promise<ValidatedOrder>;
}

export interface BookParts {
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
  /** How the solvable view writes orders: the API's formats (api/encoding/solvable.ts), for the settlement contract. */
  solvableEncoding(settlement: string): SolvableEncoding;
}

export interface Book extends Readonly<Required<Omit<BookParts, 'validator' | 'digests' | 'solvableEncoding'>>> {
  readonly validator?: OrderValidator;
  /** The settlement contract's EIP-712 domain separator. */
  readonly domainSeparator: string;
  /** The settlement contract, lowercase, as every order shows it. */
  readonly settlement: string;
  /** The solvable orders and every open order's funding (start it before serving). */
  readonly solvable: SolvableOrders;
  /** The read models' digests, kept while they do not move. */
  readonly digests: DigestCache;
  /** The newest GET /api/v1/auction answer, by the ETag it was built for. */
  readonly auctionCache: { last?: AuctionFound };
}

export function composeBook(parts: BookParts): Book {
  const settlement = parts.chain.settlement.toLowerCase();
  return {
    ...parts,
    clock: parts.clock ?? Date.now,
    domainSeparator: domainSeparator(gpv2Domain(parts.chain.chainId, parts.chain.settlement)),
    settlement,
    solvable: new SolvableOrders(parts.readModels, parts.runner, parts.chain.balances, parts.solvableEncoding(settlement)),
    digests: new DigestCache(
      parts.digests ?? digestsInProcess(parts.readModels),
      parts.runner.projections.map((p) => p.name),
    ),
    auctionCache: {},
  };
}

/** Now in Unix seconds, the unit of validTo. */
export function nowOf(book: Pick<Book, 'clock'>): number {
  return Math.floor(book.clock() / 1000);
}

/** Now as the log records times: ISO 8601 UTC. */
export function isoNow(book: Pick<Book, 'clock'>): string {
  return new Date(book.clock()).toISOString();
}

/**
 * Waits until the read models show the events up to `position` (read your writes). When they do not within
 * READ_MODELS_WAIT_MS the command still answers success: its events are appended and acknowledged, and an
 * error would only tell the client to send again what is already stored (as CoW does, the answer says
 * "stored"); the read models show it once they catch up, and the runner logs the delay.
 */
export async function readYourWrites(book: Pick<Book, 'runner'>, position: number | null): Promise<void> {
  if (position === null) return;
  try {
    await book.runner.waitFor(position);
  } catch (err) {
    if (!(err instanceof ReadModelsBehind)) throw err;
  }
}
