/**
 * What the solvable orders view (solvable-view.ts) needs of the wire, declared here and implemented by the
 * API (api/encoding/solvable.ts), which owns the formats: the view keeps what it encoded (per order, per
 * segment) and encodes again only what changed, but how an order is written, how a segment's text is
 * compressed and how the ETag is taken are the API's. The order book's start passes the implementation
 * when the view is made.
 */
import type { OrderState } from '../write/order-state.js';

/** A body as buffers to send one after the other, and its length in bytes. */
export interface Pieces {
  buffers: Buffer[];
  length: number;
}

/** A hash of a set of orders' bytes, followed one order at a time; its tag is the answer's ETag. */
export interface OrderSetHash {
  add(bytes: Buffer): void;
  /** Removes bytes added before. */
  remove(bytes: Buffer): void;
  /** The ETag of the set as it stands. */
  etag(): string;
}

/**
 * The formats of solvable_orders and of the auction's orders. `Piece` is a text compressed on its own: the
 * view keeps it with its segment and hands it back to `compressedArray`, and never looks inside.
 */
export interface SolvableEncoding<Piece = unknown> {
  /** The order as solvable_orders writes it at `now`, with the balance available to it. */
  order(state: OrderState, now: number, availableBalance: bigint | null): Buffer;
  /** The order as GET /api/v1/auction writes it: nothing of it depends on the time or the balance. */
  auctionOrder(state: OrderState): Buffer;
  /** Items (orders' bytes) one after the other as an array holds them: a segment's text. */
  join(items: readonly Buffer[]): Buffer;
  /** The array of the texts (each join's, none empty), in order. */
  array(texts: readonly Buffer[]): Pieces;
  /** A text compressed on its own, off the event loop. */
  compress(text: Buffer): Promise<Piece>;
  /** The array of the compressed texts (each a join's, none empty), compressed: what array() is, for a client that takes it so. */
  compressedArray(pieces: readonly Piece[]): Pieces;
  /** An empty hash of a set of orders' bytes. */
  orderSet(): OrderSetHash;
}
