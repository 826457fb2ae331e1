/* Generated from schemas/orderbook/events/order-created.schema.json by `npm run gen:types`. Do not edit. */

/**
 * Data of OrderCreated (schemaVersion 1): an order was accepted by this book. Every field of the signed order, addresses lowercase, amounts as decimal strings; receiver null means the owner. Optional (orders placed through today's API): fullAppData, the app data document; quoteId and quote, the quote the order names; class, market or limit.
 */
export interface OrderCreatedData {
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
  fullAppData?: string | null;
  quoteId?: number;
  quote?: StoredOrderQuote;
  class?: 'market' | 'limit' | 'liquidity';
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
