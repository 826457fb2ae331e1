/* Generated from schemas/orderbook/trade.schema.json by `npm run gen:types`. Do not edit. */

/**
 * One Trade event of the settlement contract, as GET /api/v1/trades returns it. sellAmount includes the fee; sellAmountBeforeFees does not.
 */
export interface Trade {
  blockNumber: number;
  logIndex: number;
  orderUid: string;
  owner: string;
  sellToken: string;
  buyToken: string;
  sellAmount: string;
  sellAmountBeforeFees: string;
  buyAmount: string;
  transactionHash: string;
}
