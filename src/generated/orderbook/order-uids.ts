/* Generated from schemas/orderbook/order-uids.schema.json by `npm run gen:types`. Do not edit. */

/**
 * The body of POST /api/v1/orders/by_uids: up to 128 order UIDs.
 *
 * @maxItems 128
 */
export type OrderUids = string[];
