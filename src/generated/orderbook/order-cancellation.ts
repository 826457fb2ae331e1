/* Generated from schemas/orderbook/order-cancellation.schema.json by `npm run gen:types`. Do not edit. */

export type A65ByteSignatureRSV0X130HexDigits = string;
export type TheSigningSchemeOfACancellationEip712OrEthsign = 'eip712' | 'ethsign';

/**
 * The body of DELETE /api/v1/orders/{UID}: the owner's signature of OrderCancellation(bytes orderUid) in the order book's EIP-712 domain, as eip712 or ethsign.
 */
export interface OrderCancellation {
  signature: A65ByteSignatureRSV0X130HexDigits;
  signingScheme: TheSigningSchemeOfACancellationEip712OrEthsign;
}
