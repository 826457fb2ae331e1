/* Generated from schemas/orderbook/queries/orders-query.schema.json by `npm run gen:types`. Do not edit. */

/**
 * Query parameters of GET /api/v1/orders, as strings from the URL. By default the currently valid orders; filters narrow the set, include flags widen it. Oldest first, a page at a time: `limit` orders are read (default and at most 1000), and when there may be more the answer's Link header names the next page (rel="next", the same query with `cursor`).
 */
export interface OrdersQuery {
  /**
   * Only orders of this owner.
   */
  owner?: string;
  /**
   * Only orders selling this token.
   */
  sellToken?: string;
  /**
   * Only orders buying this token.
   */
  buyToken?: string;
  /**
   * Also fully executed orders (default false).
   */
  includeFullyExecuted?: 'true' | 'false';
  /**
   * Also orders cancelled off-chain or invalidated on-chain (default false).
   */
  includeInvalidated?: 'true' | 'false';
  /**
   * Also open orders their owner cannot fund now (default false).
   */
  includeInsufficientBalance?: 'true' | 'false';
  /**
   * Only orders with validTo at least this (default: now).
   */
  minValidTo?: string;
  /**
   * Orders read for this page (default 1000); orders the include flags leave out are read but not listed, so a page may hold fewer.
   */
  limit?: string;
  /**
   * Where the page starts: after the last order the previous page read.
   */
  cursor?: string;
}
