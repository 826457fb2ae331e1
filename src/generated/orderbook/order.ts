/* Generated from schemas/orderbook/order.schema.json by `npm run gen:types`. Do not edit. */

export type A56ByteOrderUID0X112HexDigits = string;
export type A20ByteAddressInLowercase0X40LowercaseHexDigits = string;
export type AnISO8601UTCDateTime = string;
export type ALowercase20ByteAddressOrNullTheOwner = A20ByteAddressInLowercase0X40LowercaseHexDigits | null;
export type AUint256AsADecimalStringDigitsOnlyAtMost78 = string;
export type AUint32Integer0To4294967295 = number;
export type BytesOfAppData0X64HexDigits = string;
export type TheOrderKindSellOrBuy = 'sell' | 'buy';
export type WhereTheSellTokenComesFromErc20ExternalOrInternal = 'erc20' | 'external' | 'internal';
export type WhereTheBuyTokenGoesErc20OrInternal = 'erc20' | 'internal';
export type TheSigningSchemeEip712EthsignEip1271OrPresign = 'eip712' | 'ethsign' | 'eip1271' | 'presign';
export type SignatureBytes0XAnEvenNumberOfHexDigits = string;
export type TheSellTokenBalanceAvailableToThisOrderUint256DecimalStringOrNullWhenUnknown =
  AUint256AsADecimalStringDigitsOnlyAtMost78 | null;
export type TheOrderStatusPresignaturePendingOpenFulfilledCancelledOrExpired =
  'presignaturePending' | 'open' | 'fulfilled' | 'cancelled' | 'expired';

/**
 * An order as the order book returns it (GET /api/v1/orders, /api/v1/orders/{UID}, /api/v1/solvable_orders): the signed fields, addresses in lowercase, plus what the book knows about it. executedSellAmount includes the fee; invalidated is true when the order was cancelled off-chain or invalidated on-chain.
 */
export interface Order {
  uid: A56ByteOrderUID0X112HexDigits;
  owner: A20ByteAddressInLowercase0X40LowercaseHexDigits;
  creationDate: AnISO8601UTCDateTime;
  sellToken: A20ByteAddressInLowercase0X40LowercaseHexDigits;
  buyToken: A20ByteAddressInLowercase0X40LowercaseHexDigits;
  receiver: ALowercase20ByteAddressOrNullTheOwner;
  sellAmount: AUint256AsADecimalStringDigitsOnlyAtMost78;
  buyAmount: AUint256AsADecimalStringDigitsOnlyAtMost78;
  validTo: AUint32Integer0To4294967295;
  appData: BytesOfAppData0X64HexDigits;
  feeAmount: AUint256AsADecimalStringDigitsOnlyAtMost78;
  kind: TheOrderKindSellOrBuy;
  partiallyFillable: boolean;
  sellTokenBalance: WhereTheSellTokenComesFromErc20ExternalOrInternal;
  buyTokenBalance: WhereTheBuyTokenGoesErc20OrInternal;
  signingScheme: TheSigningSchemeEip712EthsignEip1271OrPresign;
  signature: SignatureBytes0XAnEvenNumberOfHexDigits;
  availableBalance: TheSellTokenBalanceAvailableToThisOrderUint256DecimalStringOrNullWhenUnknown;
  executedSellAmount: AUint256AsADecimalStringDigitsOnlyAtMost78;
  executedSellAmountBeforeFees: AUint256AsADecimalStringDigitsOnlyAtMost78;
  executedBuyAmount: AUint256AsADecimalStringDigitsOnlyAtMost78;
  executedFeeAmount: AUint256AsADecimalStringDigitsOnlyAtMost78;
  invalidated: boolean;
  status: TheOrderStatusPresignaturePendingOpenFulfilledCancelledOrExpired;
}
