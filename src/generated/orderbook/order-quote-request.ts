/* Generated from schemas/orderbook/order-quote-request.schema.json by `npm run gen:types`. Do not edit. */

/**
 * The body of POST /api/v1/quote (the reference's OrderQuoteRequest): exactly one of sellAmountBeforeFee, sellAmountAfterFee (kind sell) or buyAmountAfterFee (kind buy); validTo or validFor (default: 30 minutes). Fields this service does not use (onchainOrder, timeout, ...) are ignored.
 */
export interface OrderQuoteRequest {
  sellToken: string;
  buyToken: string;
  from: string;
  receiver?: string | null;
  kind: 'sell' | 'buy';
  sellAmountBeforeFee?: string;
  sellAmountAfterFee?: string;
  buyAmountAfterFee?: string;
  validTo?: number;
  validFor?: number;
  appData?: string;
  appDataHash?: string;
  partiallyFillable?: boolean;
  sellTokenBalance?: 'erc20' | 'external' | 'internal';
  buyTokenBalance?: 'erc20' | 'internal';
  priceQuality?: 'fast' | 'optimal' | 'verified';
  signingScheme?: 'eip712' | 'ethsign' | 'eip1271' | 'presign';
}
