/**
 * The GPv2Settlement contract of the order book network, as the order book needs it: its address, chain,
 * vault relayer and EIP-712 domain separator. On an external upstream nothing is deployed: the configured
 * settlement contract (SETTLEMENT_CONTRACT) or the canonical one is checked to be there and to answer as
 * GPv2Settlement. (The embedded dev chain deploys its own first: src/wiring/gpv2.ts.)
 */
import { Interface, type InterfaceAbi } from 'ethers';
import { gpv2Artifact } from '../../contracts/artifacts.js';
import { ChainError, fromQuantity, resultOf, type ChainRpc } from './rpc.js';

/** The canonical GPv2Settlement deployment, used when the order book network has an external upstream. */
export const CANONICAL_SETTLEMENT = '0x9008D19f58AAbD9eD0D60971565AA8510560ab41';

export interface SettlementDeployment {
  chainId: number;
  settlement: string;
  vaultRelayer: string;
  /** As the contract computes it: the EIP-712 domain separator orders are signed against. */
  domainSeparator: string;
}

/** Addresses are lowercase throughout the order book. */
const lower = (address: string) => address.toLowerCase();

const settlementInterface = () => new Interface(gpv2Artifact('GPv2Settlement').abi as InterfaceAbi);

/**
 * The settlement contract of an external upstream: `configured` (SETTLEMENT_CONTRACT) or the canonical
 * deployment. Fails with a ChainError when no contract is there or it does not answer as GPv2Settlement.
 */
export async function resolveSettlement(rpc: ChainRpc, configured: string = CANONICAL_SETTLEMENT): Promise<SettlementDeployment> {
  const settlement = lower(configured);
  const iface = settlementInterface();
  const read = (fn: string) => ({ method: 'eth_call', params: [{ to: settlement, data: iface.encodeFunctionData(fn) }, 'latest'] });
  const [chainId, code, relayer, domain] = await rpc.batch([
    { method: 'eth_chainId', params: [] },
    { method: 'eth_getCode', params: [settlement, 'latest'] },
    read('vaultRelayer'),
    read('domainSeparator'),
  ]);
  const id = fromQuantity(resultOf(chainId, 'eth_chainId'), 'eth_chainId');
  const bytecode = resultOf(code, 'eth_getCode');
  if (typeof bytecode !== 'string' || bytecode === '0x') {
    throw new ChainError(`no settlement contract at ${settlement} on chain ${id}`);
  }
  try {
    return {
      chainId: id,
      settlement,
      vaultRelayer: lower(iface.decodeFunctionResult('vaultRelayer', resultOf(relayer, 'vaultRelayer()') as string)[0]),
      domainSeparator: iface.decodeFunctionResult('domainSeparator', resultOf(domain, 'domainSeparator()') as string)[0],
    };
  } catch (err) {
    throw new ChainError(`${settlement} on chain ${id} does not answer as GPv2Settlement: ${(err as Error).message}`);
  }
}
