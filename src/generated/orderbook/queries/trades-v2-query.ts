/* Generated from schemas/orderbook/queries/trades-v2-query.schema.json by `npm run gen:types`. Do not edit. */

/**
 * GET /api/v2/trades: exactly one of owner and orderUid; offset (at most 10000); limit 1 to 1000 (default 10).
 */
export interface TradesV2Query {
  owner?: string;
  orderUid?: string;
  offset?: string;
  limit?: string;
}
