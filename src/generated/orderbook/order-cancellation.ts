/* Generated from schemas/orderbook/order-cancellation.schema.json by `npm run gen:types`. Do not edit. */

/**
 * The body of DELETE /api/v1/orders/{UID}: the owner's signature of OrderCancellation(bytes orderUid) in the order book's EIP-712 domain, as eip712 or ethsign.
 */
export interface OrderCancellation {
  signature: string;
  signingScheme: 'eip712' | 'ethsign';
}
