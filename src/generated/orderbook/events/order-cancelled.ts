/* Generated from schemas/orderbook/events/order-cancelled.schema.json by `npm run gen:types`. Do not edit. */

export type A56ByteOrderUID0X112HexDigits = string;
export type AnISO8601UTCDateTime = string;
export type TheSigningSchemeOfACancellationEip712OrEthsign = 'eip712' | 'ethsign';
export type A65ByteSignatureRSV0X130HexDigits = string;

/**
 * Data of OrderCancelled (schemaVersion 1): the owner cancelled the order off-chain with a signed OrderCancellation at cancelledAt.
 */
export interface OrderCancelledData {
  uid: A56ByteOrderUID0X112HexDigits;
  cancelledAt: AnISO8601UTCDateTime;
  signingScheme: TheSigningSchemeOfACancellationEip712OrEthsign;
  signature: A65ByteSignatureRSV0X130HexDigits;
}
