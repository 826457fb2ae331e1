/* Generated from schemas/orderbook/events/trade-recorded.schema.json by `npm run gen:types`. Do not edit. */

export type A56ByteOrderUID0X112HexDigits = string;
export type A32ByteHash0X64HexDigits = string;
export type A20ByteAddressInLowercase0X40LowercaseHexDigits = string;
export type AUint256AsADecimalStringDigitsOnlyAtMost78 = string;

/**
 * Data of TradeRecorded (schemaVersion 1): the settlement contract emitted Trade for the order. sellAmount includes feeAmount; sellAmountBeforeFees = sellAmount - feeAmount.
 */
export interface TradeRecordedData {
  uid: A56ByteOrderUID0X112HexDigits;
  chain: ChainEventRef;
  owner: A20ByteAddressInLowercase0X40LowercaseHexDigits;
  sellToken: A20ByteAddressInLowercase0X40LowercaseHexDigits;
  buyToken: A20ByteAddressInLowercase0X40LowercaseHexDigits;
  sellAmount: AUint256AsADecimalStringDigitsOnlyAtMost78;
  buyAmount: AUint256AsADecimalStringDigitsOnlyAtMost78;
  feeAmount: AUint256AsADecimalStringDigitsOnlyAtMost78;
  sellAmountBeforeFees: AUint256AsADecimalStringDigitsOnlyAtMost78;
}
/**
 * Where a settlement contract event is on the chain. An event from the chain is identified by (blockHash, logIndex).
 */
export interface ChainEventRef {
  blockNumber: number;
  blockHash: A32ByteHash0X64HexDigits;
  logIndex: number;
  transactionHash: A32ByteHash0X64HexDigits;
}
