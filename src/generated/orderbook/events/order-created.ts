/* Generated from schemas/orderbook/events/order-created.schema.json by `npm run gen:types`. Do not edit. */

/**
 * Data of OrderCreated (schemaVersion 1): an order was accepted by this book. Every field of the signed order, addresses lowercase, amounts as decimal strings; receiver null means the owner.
 */
export interface OrderCreatedData {
  uid: string;
  owner: string;
  creationDate: string;
  sellToken: string;
  buyToken: string;
  receiver: string | null;
  sellAmount: string;
  buyAmount: string;
  validTo: number;
  appData: string;
  feeAmount: string;
  kind: 'sell' | 'buy';
  partiallyFillable: boolean;
  sellTokenBalance: 'erc20' | 'external' | 'internal';
  buyTokenBalance: 'erc20' | 'internal';
  signingScheme: 'eip712' | 'ethsign' | 'eip1271' | 'presign';
  signature: string;
}
