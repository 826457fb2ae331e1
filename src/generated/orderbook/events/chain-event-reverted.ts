/* Generated from schemas/orderbook/events/chain-event-reverted.schema.json by `npm run gen:types`. Do not edit. */

/**
 * Data of ChainEventReverted (schemaVersion 1): a chain reorganisation removed the chain event identified by chain (blockHash, logIndex) of type reverted; it no longer counts. The log is never rewritten: this compensates it.
 */
export interface ChainEventRevertedData {
  uid: string;
  chain: ChainEventRef;
  reverted: 'OrderInvalidated' | 'OrderPresigned' | 'PresignatureRevoked' | 'TradeRecorded';
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
