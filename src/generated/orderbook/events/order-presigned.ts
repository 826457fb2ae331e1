/* Generated from schemas/orderbook/events/order-presigned.schema.json by `npm run gen:types`. Do not edit. */

/**
 * Data of OrderPresigned (schemaVersion 1): the settlement contract emitted PreSignature(owner, orderUid, true).
 */
export interface OrderPresignedData {
  uid: string;
  chain: ChainEventRef;
}
/**
 * Where a settlement contract event is on the chain. An event from the chain is identified by (blockHash, logIndex).
 */
export interface ChainEventRef {
  blockNumber: number;
  blockHash: string;
  logIndex: number;
  transactionHash: string;
}
