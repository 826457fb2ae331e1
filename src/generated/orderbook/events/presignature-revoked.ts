/* Generated from schemas/orderbook/events/presignature-revoked.schema.json by `npm run gen:types`. Do not edit. */

/**
 * Data of PresignatureRevoked (schemaVersion 1): the settlement contract emitted PreSignature(owner, orderUid, false).
 */
export interface PresignatureRevokedData {
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
