/* Generated from schemas/orderbook/order-creation.schema.json by `npm run gen:types`. Do not edit. */

export type A20ByteAddress0X40HexDigits = string;
export type A20ByteAddress0X40HexDigitsOrNull = A20ByteAddress0X40HexDigits | null;
export type AUint256AsADecimalStringDigitsOnlyAtMost78 = string;
export type AUint32Integer0To4294967295 = number;
export type BytesOfAppData0X64HexDigits = string;
export type TheOrderKindSellOrBuy = 'sell' | 'buy';
export type ABooleanTrueOrFalse = boolean;
export type WhereTheSellTokenComesFromErc20ExternalOrInternal = 'erc20' | 'external' | 'internal';
export type WhereTheBuyTokenGoesErc20OrInternal = 'erc20' | 'internal';
export type TheSigningSchemeEip712EthsignEip1271OrPresign = 'eip712' | 'ethsign' | 'eip1271' | 'presign';
export type SignatureBytes0XAnEvenNumberOfHexDigits = string;
export type A20ByteAddress0X40HexDigitsOrNull1 = A20ByteAddress0X40HexDigits | null;
export type AQuoteIdIntegerOrNullAcceptedForCoWClientCompatibilityAndNotUsed = number | null;

/**
 * The body of POST /api/v1/orders: the signed order. receiver null (or absent) means the owner; sellTokenBalance and buyTokenBalance default to erc20. For eip712 and ethsign the owner is recovered from the signature (from, when present, must equal it); for eip1271 from is the owner (the contract whose isValidSignature is asked); for presign the signature is the owner's 20-byte address (or empty, with from).
 */
export interface OrderCreation {
  sellToken: A20ByteAddress0X40HexDigits;
  buyToken: A20ByteAddress0X40HexDigits;
  receiver?: A20ByteAddress0X40HexDigitsOrNull;
  sellAmount: AUint256AsADecimalStringDigitsOnlyAtMost78;
  buyAmount: AUint256AsADecimalStringDigitsOnlyAtMost78;
  validTo: AUint32Integer0To4294967295;
  appData: BytesOfAppData0X64HexDigits;
  feeAmount: AUint256AsADecimalStringDigitsOnlyAtMost78;
  kind: TheOrderKindSellOrBuy;
  partiallyFillable: ABooleanTrueOrFalse;
  sellTokenBalance?: WhereTheSellTokenComesFromErc20ExternalOrInternal;
  buyTokenBalance?: WhereTheBuyTokenGoesErc20OrInternal;
  signingScheme: TheSigningSchemeEip712EthsignEip1271OrPresign;
  signature: SignatureBytes0XAnEvenNumberOfHexDigits;
  from?: A20ByteAddress0X40HexDigitsOrNull1;
  quoteId?: AQuoteIdIntegerOrNullAcceptedForCoWClientCompatibilityAndNotUsed;
}
