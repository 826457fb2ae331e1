/* Generated from schemas/orderbook/queries/events-query.schema.json by `npm run gen:types`. Do not edit. */

/**
 * Query parameters of GET /api/v1/events: the global log after `after` (default 0), `limit` events at a time (default and at most 1000).
 */
export interface EventsQuery {
  after?: string;
  limit?: string;
}
