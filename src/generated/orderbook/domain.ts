/* Generated from schemas/orderbook/domain.schema.json by `npm run gen:types`. Do not edit. */

/**
 * The body of GET /api/v1/domain: the EIP-712 domain orders and cancellations are signed in (the settlement contract's), its separator, and the vault relayer that needs the sell token allowance.
 */
export interface Eip712DomainInfo {
  name: 'Gnosis Protocol';
  version: 'v2';
  chainId: number;
  verifyingContract: string;
  domainSeparator: string;
  vaultRelayer?: string;
}
