/* Generated from schemas/orderbook/order-quote-response.schema.json by `npm run gen:types`. Do not edit. */

/**
 * The answer of POST /api/v1/quote: the order to sign (sellAmount after the fee; feeAmount is the fee the price already covers, sign feeAmount 0), who asked, until when the quote holds, and its id to name in the order.
 */
export interface OrderQuoteResponse {
  quote: {
    sellToken: string;
    buyToken: string;
    receiver: string | null;
    sellAmount: string;
    buyAmount: string;
    validTo: number;
    appData: string;
    appDataHash?: string;
    feeAmount: string;
    gasAmount: string;
    gasPrice: string;
    sellTokenPrice: string;
    kind: 'sell' | 'buy';
    partiallyFillable: boolean;
    sellTokenBalance: 'erc20' | 'external' | 'internal';
    buyTokenBalance: 'erc20' | 'internal';
    signingScheme: 'eip712' | 'ethsign' | 'eip1271' | 'presign';
  };
  from: string;
  expiration: string;
  id: number;
  verified: boolean;
}
