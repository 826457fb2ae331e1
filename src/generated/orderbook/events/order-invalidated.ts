/* Generated from schemas/orderbook/events/order-invalidated.schema.json by `npm run gen:types`. Do not edit. */

/**
 * Data of OrderInvalidated (schemaVersion 1): the settlement contract emitted OrderInvalidated for the order (the owner's on-chain invalidation).
 */
export interface OrderInvalidatedData {
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
