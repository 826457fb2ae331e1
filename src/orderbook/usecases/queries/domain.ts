/** GET /api/v1/domain: the settlement contract's EIP-712 domain, as clients sign orders for it. */
import type { Eip712DomainInfo } from '../../../generated/orderbook/domain.js';
import { DOMAIN_NAME, DOMAIN_VERSION } from '../../domain/eip712.js';
import type { Book } from '../book.js';

export function signingDomain(book: Pick<Book, 'chain' | 'domainSeparator'>): Eip712DomainInfo {
  const { chainId, settlement, vaultRelayer } = book.chain;
  return {
    name: DOMAIN_NAME,
    version: DOMAIN_VERSION,
    chainId,
    verifyingContract: settlement.toLowerCase(),
    domainSeparator: book.domainSeparator,
    ...(vaultRelayer ? { vaultRelayer: vaultRelayer.toLowerCase() } : {}),
  };
}
