/* Generated from schemas/orderbook/stored-order-quote.schema.json by `npm run gen:types`. Do not edit. */

/**
 * The quote an order was placed with (the reference's StoredOrderQuote): gas and prices at quoting time, amounts in base units.
 */
export interface StoredOrderQuote {
  gasAmount: string;
  gasPrice: string;
  sellTokenPrice: string;
  sellAmount: string;
  buyAmount: string;
  feeAmount: string;
  solver: string;
  verified: boolean;
}
