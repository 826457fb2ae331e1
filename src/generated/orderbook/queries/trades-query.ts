/* Generated from schemas/orderbook/queries/trades-query.schema.json by `npm run gen:types`. Do not edit. */

/**
 * Query parameters of GET /api/v1/trades. Trades come oldest first (block number, then log index), `limit` at a time (default 100, at most 1000) from `offset` (default 0, at most 10000).
 */
export interface TradesQuery {
  /**
   * Only trades of orders of this owner.
   */
  owner?: string;
  /**
   * Only trades of this order.
   */
  orderUid?: string;
  offset?: string;
  limit?: string;
}
