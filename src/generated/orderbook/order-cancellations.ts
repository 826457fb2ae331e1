/* Generated from schemas/orderbook/order-cancellations.schema.json by `npm run gen:types`. Do not edit. */

/**
 * The body of DELETE /api/v1/orders: up to 128 order UIDs and the owner's signature of the EIP-712 struct OrderCancellations(bytes[] orderUids) (eip712, or ethsign of its digest).
 */
export interface OrderCancellations {
  /**
   * @minItems 1
   * @maxItems 128
   */
  orderUids: string[];
  signature: string;
  signingScheme: 'eip712' | 'ethsign';
}
