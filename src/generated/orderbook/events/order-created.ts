/* Generated from schemas/orderbook/events/order-created.schema.json by `npm run gen:types`. Do not edit. */

export type A56ByteOrderUID0X112HexDigits = string;
export type A20ByteAddressInLowercase0X40LowercaseHexDigits = string;
export type AnISO8601UTCDateTime = string;
export type AUint256AsADecimalStringDigitsOnlyAtMost78 = string;
export type AUint32Integer0To4294967295 = number;
export type BytesOfAppData0X64HexDigits = string;
export type TheOrderKindSellOrBuy = 'sell' | 'buy';
export type WhereTheSellTokenComesFromErc20ExternalOrInternal = 'erc20' | 'external' | 'internal';
export type WhereTheBuyTokenGoesErc20OrInternal = 'erc20' | 'internal';
export type TheSigningSchemeEip712EthsignEip1271OrPresign = 'eip712' | 'ethsign' | 'eip1271' | 'presign';
export type SignatureBytes0XAnEvenNumberOfHexDigits = string;

/**
 * Data of OrderCreated (schemaVersion 1): an order was accepted by this book. Every field of the signed order, addresses lowercase, amounts as decimal strings; receiver null means the owner.
 */
export interface OrderCreatedData {
  uid: A56ByteOrderUID0X112HexDigits;
  owner: A20ByteAddressInLowercase0X40LowercaseHexDigits;
  creationDate: AnISO8601UTCDateTime;
  sellToken: A20ByteAddressInLowercase0X40LowercaseHexDigits;
  buyToken: A20ByteAddressInLowercase0X40LowercaseHexDigits;
  receiver: A20ByteAddressInLowercase0X40LowercaseHexDigits | null;
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
}
