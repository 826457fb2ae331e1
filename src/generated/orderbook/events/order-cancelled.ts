/* Generated from schemas/orderbook/events/order-cancelled.schema.json by `npm run gen:types`. Do not edit. */

/**
 * Data of OrderCancelled (schemaVersion 1): the owner cancelled the order off-chain with a signed OrderCancellation at cancelledAt.
 */
export interface OrderCancelledData {
  uid: string;
  cancelledAt: string;
  signingScheme: 'eip712' | 'ethsign';
  signature: string;
}
