/* Generated from schemas/orderbook/trade.schema.json by `npm run gen:types`. Do not edit. */

export type A56ByteOrderUID0X112HexDigits = string;
export type A20ByteAddressInLowercase0X40LowercaseHexDigits = string;
export type AUint256AsADecimalStringDigitsOnlyAtMost78 = string;
export type A32ByteHash0X64HexDigits = string;

/**
 * One Trade event of the settlement contract, as GET /api/v1/trades returns it. sellAmount includes the fee; sellAmountBeforeFees does not.
 */
export interface Trade {
  blockNumber: number;
  logIndex: number;
  orderUid: A56ByteOrderUID0X112HexDigits;
  owner: A20ByteAddressInLowercase0X40LowercaseHexDigits;
  sellToken: A20ByteAddressInLowercase0X40LowercaseHexDigits;
  buyToken: A20ByteAddressInLowercase0X40LowercaseHexDigits;
  sellAmount: AUint256AsADecimalStringDigitsOnlyAtMost78;
  sellAmountBeforeFees: AUint256AsADecimalStringDigitsOnlyAtMost78;
  buyAmount: AUint256AsADecimalStringDigitsOnlyAtMost78;
  transactionHash: A32ByteHash0X64HexDigits;
}
