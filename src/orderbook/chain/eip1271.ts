/**
 * The on-chain half of eip1271 orders: asks the owner contract whether it accepts a signature of an order
 * digest, as GPv2Settlement will when the order settles (isValidSignature must return 0x1626ba7e).
 */
import { Interface, type InterfaceAbi } from 'ethers';
import { gpv2Artifact } from '../../contracts/artifacts.js';
import { callResult, toQuantity, type ChainRpc } from './rpc.js';

const EIP1271_MAGIC_VALUE = '0x1626ba7e';

let verifierAbi: Interface | undefined;

/** EIP1271Verifier's ABI, read from the artifact on first use. */
function verifier(): Interface {
  return (verifierAbi ??= new Interface(gpv2Artifact('EIP1271Verifier').abi as InterfaceAbi));
}

/**
 * true only when `owner` returns the magic value. A revert, an owner without code (an EOA) or an answer
 * that is not a bytes4 is false; a transport fault or a node that cannot serve the block is a ChainError
 * (the signature is not known to be wrong).
 */
export async function isValidEip1271Signature(
  rpc: ChainRpc,
  owner: string,
  digest: string,
  signature: string,
  block: number | 'latest' = 'latest',
): Promise<boolean> {
  const data = verifier().encodeFunctionData('isValidSignature', [digest, signature]);
  const [answer] = await rpc.batch([
    { method: 'eth_call', params: [{ to: owner, data }, block === 'latest' ? block : toQuantity(block)] },
  ]);
  const result = callResult(answer, verifier(), 'isValidSignature', `isValidSignature of ${owner}`);
  return result !== null && String(result[0]).toLowerCase() === EIP1271_MAGIC_VALUE;
}
