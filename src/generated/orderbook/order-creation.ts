/* Generated from schemas/orderbook/order-creation.schema.json by `npm run gen:types`. Do not edit. */

/**
 * The body of POST /api/v1/orders: the signed order. receiver null (or absent) means the owner; sellTokenBalance and buyTokenBalance default to erc20. For eip712 and ethsign the owner is recovered from the signature (from, when present, must equal it); for eip1271 from is the owner (the contract whose isValidSignature is asked); for presign the signature is the owner's 20-byte address (or empty, with from).
 */
export interface OrderCreation {
  sellToken: string;
  buyToken: string;
  receiver?: string | null;
  sellAmount: string;
  buyAmount: string;
  validTo: number;
  appData: string;
  feeAmount: string;
  kind: 'sell' | 'buy';
  partiallyFillable: boolean;
  sellTokenBalance?: 'erc20' | 'external' | 'internal';
  buyTokenBalance?: 'erc20' | 'internal';
  signingScheme: 'eip712' | 'ethsign' | 'eip1271' | 'presign';
  signature: string;
  from?: string | null;
  quoteId?: number | null;
}
