/* Generated from schemas/orderbook/error.schema.json by `npm run gen:types`. Do not edit. */

/**
 * The body of every error answer of the order book API (4xx and 5xx), as the CoW Protocol order book has it.
 */
export interface OrderbookErrorBody {
  errorType: string;
  description: string;
}
