/* Generated from schemas/orderbook/events/quote-issued.schema.json by `npm run gen:types`. Do not edit. */

/**
 * Data of QuoteIssued (schemaVersion 1), the only event of stream quote-<random>: POST /api/v1/quote priced an order. The quote's id is this event's global position, so any instance sharing the store finds it. sellAmount is after the fee.
 */
export interface QuoteIssuedData {
  sellToken: string;
  buyToken: string;
  receiver: string | null;
  sellAmount: string;
  buyAmount: string;
  feeAmount: string;
  validTo: number;
  appData: string;
  fullAppData: string | null;
  kind: 'sell' | 'buy';
  partiallyFillable: boolean;
  sellTokenBalance: 'erc20' | 'external' | 'internal';
  buyTokenBalance: 'erc20' | 'internal';
  signingScheme: 'eip712' | 'ethsign' | 'eip1271' | 'presign';
  from: string;
  priceQuality: 'fast' | 'optimal' | 'verified';
  gasAmount: string;
  gasPrice: string;
  sellTokenPrice: string;
  expiration: string;
  quotedAt: string;
}
