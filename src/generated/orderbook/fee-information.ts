/* Generated from schemas/orderbook/fee-information.schema.json by `npm run gen:types`. Do not edit. */

/**
 * The body of GET /api/v1/tokens/{sellToken}/fee: the minimal fee in sell token units, valid until expirationDate, and the fee ratio in basis points of the sell amount.
 */
export interface FeeInformation {
  expirationDate: string;
  minimalFee: string;
  feeRatio: number;
}
