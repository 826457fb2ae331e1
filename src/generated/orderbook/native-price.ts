/* Generated from schemas/orderbook/native-price.schema.json by `npm run gen:types`. Do not edit. */

/**
 * GET /api/v1/token/{token}/native_price: native token atoms per atom of the token.
 */
export interface NativePriceResponse {
  price: number;
}
