/* Generated from schemas/orderbook/events/order-presigned.schema.json by `npm run gen:types`. Do not edit. */

export type A56ByteOrderUID0X112HexDigits = string;
export type A32ByteHash0X64HexDigits = string;

/**
 * Data of OrderPresigned (schemaVersion 1): the settlement contract emitted PreSignature(owner, orderUid, true).
 */
export interface OrderPresignedData {
  uid: A56ByteOrderUID0X112HexDigits;
  chain: ChainEventRef;
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
