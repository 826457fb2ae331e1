/* Generated from schemas/orderbook/events/quote-issued.schema.json by `npm run gen:types`. Do not edit. */

/**
 * A quote of POST /api/v1/quote as the quote store keeps it (its id aside), and the data of QuoteIssued (schemaVersion 1), the only event of stream quote-<random>, which older versions appended for each quote (its id was the event's global position); logs holding it are still read. sellAmount is after the fee.
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
