/* Generated from schemas/orderbook/domain.schema.json by `npm run gen:types`. Do not edit. */

export type A20ByteAddressInLowercase0X40LowercaseHexDigits = string;
export type A32ByteHash0X64HexDigits = string;

/**
 * The body of GET /api/v1/domain: the EIP-712 domain orders and cancellations are signed in (the settlement contract's), its separator, and the vault relayer that needs the sell token allowance.
 */
export interface Eip712DomainInfo {
  name: 'Gnosis Protocol';
  version: 'v2';
  chainId: number;
  verifyingContract: A20ByteAddressInLowercase0X40LowercaseHexDigits;
  domainSeparator: A32ByteHash0X64HexDigits;
  vaultRelayer?: A20ByteAddressInLowercase0X40LowercaseHexDigits;
}
