/* Generated from schemas/orderbook/fee-information.schema.json by `npm run gen:types`. Do not edit. */

export type AnISO8601UTCDateTime = string;
export type AUint256AsADecimalStringDigitsOnlyAtMost78 = string;
export type TheFeeRatioInBasisPointsAnInteger0To10000 = number;

/**
 * The body of GET /api/v1/tokens/{sellToken}/fee: the minimal fee in sell token units, valid until expirationDate, and the fee ratio in basis points of the sell amount.
 */
export interface FeeInformation {
  expirationDate: AnISO8601UTCDateTime;
  minimalFee: AUint256AsADecimalStringDigitsOnlyAtMost78;
  feeRatio: TheFeeRatioInBasisPointsAnInteger0To10000;
}
