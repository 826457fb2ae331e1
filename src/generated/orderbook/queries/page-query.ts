/* Generated from schemas/orderbook/queries/page-query.schema.json by `npm run gen:types`. Do not edit. */

/**
 * offset and limit of GET /api/v1/account/{owner}/orders (limit 1 to 1000, default 10; offset at most 10000).
 */
export interface PageQuery {
  offset?: string;
  limit?: string;
}
