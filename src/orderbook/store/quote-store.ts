/**
 * Quotes of POST /api/v1/quote: short-lived rows, not events (a quote is a price offered, nothing happened
 * to the book; an order that uses one carries the figures it used in its OrderCreated event). As in CoW's
 * order book (its `quotes` table), a quote is a row with an expiration and an integer id, in the same
 * database as the log, so that every instance sharing it finds a quote by id. The table is bounded twice:
 * quotes expired at the time of a save are deleted by that save, and no more than `maxLive` are kept (a
 * save beyond that deletes the oldest, which are also the soonest to expire: every quote lives the same
 * TTL). SQLite (quotes-sqlite.ts) and PostgreSQL (quotes-postgres.ts) implement it; index.ts opens the one
 * that goes with the event store.
 */
import type { QuoteIssuedData } from '../../generated/orderbook/events/quote-issued.js';

/** What a quote says: the same fields a QuoteIssued event of older logs holds (`expiration` included). */
export type QuoteData = QuoteIssuedData;

export type StoredQuote = QuoteData & { id: number };

export interface QuoteStore {
  /**
   * Saves `quote`, valid until its `expiration`, and gives its id (ids are never reused). Quotes expired at
   * `now` are deleted first, and the oldest beyond the newest `maxLive` after.
   */
  save(quote: QuoteData, now: Date): Promise<number>;
  /** The quote with id `id` unless it expired at `now` (or was deleted); null otherwise. */
  find(id: number, now: Date): Promise<StoredQuote | null>;
  /** How many quotes the table holds (expired ones not deleted yet included). */
  count(): Promise<number>;
}

export interface QuoteStoreLimits {
  /** Most quotes kept at once. */
  maxLive: number;
}

/** An id as a client gives it: a positive safe integer, else no quote can have it. */
export function isQuoteId(id: number): boolean {
  return Number.isSafeInteger(id) && id >= 1;
}
