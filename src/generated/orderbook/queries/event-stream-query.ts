/* Generated from schemas/orderbook/queries/event-stream-query.schema.json by `npm run gen:types`. Do not edit. */

/**
 * Query parameters of GET /api/v1/events/stream: the log's events after `after` (or the Last-Event-ID header, which wins; default: only new events), then live, optionally only those of one owner, one order, and some event types (a comma-separated list).
 */
export interface EventStreamQuery {
  after?: string;
  /**
   * Only events of this owner's orders.
   */
  owner?: string;
  /**
   * Only events of this order.
   */
  orderUid?: string;
  type?: string;
}
