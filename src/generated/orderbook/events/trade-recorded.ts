/* Generated from schemas/orderbook/events/trade-recorded.schema.json by `npm run gen:types`. Do not edit. */

/**
 * Data of TradeRecorded (schemaVersion 1): the settlement contract emitted Trade for the order. sellAmount includes feeAmount; sellAmountBeforeFees = sellAmount - feeAmount.
 */
export interface TradeRecordedData {
  uid: string;
  chain: ChainEventRef;
  owner: string;
  sellToken: string;
  buyToken: string;
  sellAmount: string;
  buyAmount: string;
  feeAmount: string;
  sellAmountBeforeFees: string;
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
