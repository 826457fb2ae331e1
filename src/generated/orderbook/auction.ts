/* Generated from schemas/orderbook/auction.schema.json by `npm run gen:types`. Do not edit. */

/**
 * GET /api/v1/auction: the solvable orders, the block the book has indexed, and each order token's native price (native token atoms per token atom, times 1e18). id changes whenever the set of solvable orders changes.
 */
export interface Auction {
  id: number;
  block: number;
  orders: AuctionOrder[];
  prices: {
    [k: string]: string;
  };
}
/**
 * A solvable order of GET /api/v1/auction, as the reference forwards it to solvers: created in epoch seconds (a string), executed the sell amount (before fees) or buy amount executed so far by kind, no interactions or protocol fees here, and the quote it was placed with ({sellAmount, buyAmount, fee}) when it has one. signingScheme is added (solvers need it to encode the trade).
 */
export interface AuctionOrder {
  uid: string;
  sellToken: string;
  buyToken: string;
  sellAmount: string;
  buyAmount: string;
  created: string;
  validTo: number;
  kind: 'sell' | 'buy';
  receiver: string | null;
  owner: string;
  partiallyFillable: boolean;
  executed: string;
  /**
   * @maxItems 0
   */
  preInteractions: unknown[];
  /**
   * @maxItems 0
   */
  postInteractions: unknown[];
  sellTokenBalance: 'erc20' | 'external' | 'internal';
  buyTokenBalance: 'erc20' | 'internal';
  class: 'market' | 'limit' | 'liquidity';
  appData: string;
  signature: string;
  signingScheme?: 'eip712' | 'ethsign' | 'eip1271' | 'presign';
  /**
   * @maxItems 0
   */
  protocolFees: unknown[];
  quote?: {
    sellAmount: string;
    buyAmount: string;
    fee: string;
  };
}
