/* Generated from schemas/orderbook/events/order-cancelled.schema.json by `npm run gen:types`. Do not edit. */

/**
 * Data of OrderCancelled (schemaVersion 1): the owner cancelled the order off-chain with a signed OrderCancellation at cancelledAt. bulk: the signature is of OrderCancellations(bytes[] orderUids) over the orders cancelled by one DELETE /api/v1/orders, each of which gets its own OrderCancelled.
 */
export interface OrderCancelledData {
  uid: string;
  cancelledAt: string;
  signingScheme: 'eip712' | 'ethsign';
  signature: string;
  bulk?: boolean;
}
