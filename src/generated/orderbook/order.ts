/* Generated from schemas/orderbook/order.schema.json by `npm run gen:types`. Do not edit. */

/**
 * An order as the order book returns it (GET /api/v1/orders, /api/v1/orders/{UID}, /api/v1/solvable_orders): the signed fields, addresses in lowercase, plus what the book knows about it. executedSellAmount includes the fee; invalidated is true when the order was cancelled off-chain or invalidated on-chain. Today's API adds class, settlementContract, fullAppData, executedFee, executedFeeToken and quote (GET /orders/{UID}, /account/{owner}/orders, /orders/by_uids, /transactions/{txHash}/orders).
 */
export interface Order {
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
  availableBalance: string | null;
  executedSellAmount: string;
  executedSellAmountBeforeFees: string;
  executedBuyAmount: string;
  executedFeeAmount: string;
  invalidated: boolean;
  status: 'presignaturePending' | 'open' | 'fulfilled' | 'cancelled' | 'expired';
  class?: 'market' | 'limit' | 'liquidity';
  settlementContract?: string;
  fullAppData?: string | null;
  executedFee?: string;
  executedFeeToken?: string;
  quoteId?: number;
  quote?: StoredOrderQuote | null;
}
/**
 * The quote an order was placed with (the reference's StoredOrderQuote): gas and prices at quoting time, amounts in base units.
 */
export interface StoredOrderQuote {
  gasAmount: string;
  gasPrice: string;
  sellTokenPrice: string;
  sellAmount: string;
  buyAmount: string;
  feeAmount: string;
  solver: string;
  verified: boolean;
}
