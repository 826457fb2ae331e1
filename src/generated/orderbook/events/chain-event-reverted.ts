/* Generated from schemas/orderbook/events/chain-event-reverted.schema.json by `npm run gen:types`. Do not edit. */

export type A56ByteOrderUID0X112HexDigits = string;
export type A32ByteHash0X64HexDigits = string;
export type TheTypeOfTheRevertedEvent = 'OrderInvalidated' | 'OrderPresigned' | 'PresignatureRevoked' | 'TradeRecorded';

/**
 * Data of ChainEventReverted (schemaVersion 1): a chain reorganisation removed the chain event identified by chain (blockHash, logIndex) of type reverted; it no longer counts. The log is never rewritten: this compensates it.
 */
export interface ChainEventRevertedData {
  uid: A56ByteOrderUID0X112HexDigits;
  chain: ChainEventRef;
  reverted: TheTypeOfTheRevertedEvent;
}
/**
 * Where a settlement contract event is on the chain. An event from the chain is identified by (blockHash, logIndex).
 */
export interface ChainEventRef {
  blockNumber: number;
  blockHash: A32ByteHash0X64HexDigits;
  logIndex: number;
  transactionHash: A32ByteHash0X64HexDigits;
}
