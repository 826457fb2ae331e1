/* Generated from schemas/orderbook/trade.schema.json by `npm run gen:types`. Do not edit. */

/**
 * One Trade event of the settlement contract, as GET /api/v1/trades returns it. sellAmount includes the fee; sellAmountBeforeFees does not. txHash is the settlement transaction (the reference's field); /api/v1/trades also keeps transactionHash, /api/v2/trades has only txHash.
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
  transactionHash?: string;
  txHash: string;
}
