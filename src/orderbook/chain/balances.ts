/**
 * What an owner can actually sell: min(balanceOf(owner), allowance(owner, vaultRelayer)) of a token, the
 * most the settlement contract can pull through the vault relayer for `erc20` sell-token balances. All pairs
 * are read with eth_call in JSON-RPC batches (two calls per pair), at one block so that they agree, each call
 * with at most `gas` gas: a token that needs more, or whose read ends in the EVM otherwise than by a revert
 * (out of gas, INVALID), makes that one pair unreadable, never the whole read.
 */
import { Interface, type InterfaceAbi } from 'ethers';
import { gpv2Artifact } from '../../contracts/artifacts.js';
import { nextTurn } from '../../shared/next-turn.js';
import { callResult, headNumber, isExecutionFailure, isRevert, toQuantity, type ChainRpc, type RpcAnswer } from './rpc.js';

export interface OwnerToken {
  owner: string;
  token: string;
}

export interface Spendable extends OwnerToken {
  balance: bigint;
  allowance: bigint;
  /** min(balance, allowance). */
  spendable: bigint;
}

export interface ReadSpendableOptions {
  /** Block number to read at (default: the head when the read starts). */
  block?: number;
  /** Most calls per batch (default 100, i.e. 50 pairs). */
  maxBatchSize?: number;
  /** Gas given to each eth_call (default: the node's own cap). */
  gas?: number;
}

let erc20Abi: Interface | undefined;

/** IERC20's ABI, read from the artifact on first use. */
function erc20(): Interface {
  return (erc20Abi ??= new Interface(gpv2Artifact('IERC20').abi as InterfaceAbi));
}

export function ownerTokenKey(owner: string, token: string): string {
  return `${owner.toLowerCase()}:${token.toLowerCase()}`;
}

/**
 * A call the token rejects (a revert, or an address without code answering 0x) counts as 0: the settlement
 * could not transfer that token either. A call whose execution fails otherwise (out of gas within the cap,
 * INVALID) is the token's fault and tells nothing: the pair is unreadable (the reason given). Any other
 * failure (transport, a node that cannot serve the block) fails the whole read with a ChainError rather than
 * making every order look unfunded.
 */
function amountOf(answer: RpcAnswer, fn: 'balanceOf' | 'allowance', what: string): bigint | { unreadable: string } {
  if (answer.error && !isRevert(answer.error) && isExecutionFailure(answer.error)) return { unreadable: `${what}: ${answer.error.message}` };
  // An address without code answers 0x, which no decoder need be asked about (ethers' refusal is costly).
  if (answer.result === '0x') return 0n;
  return (callResult(answer, erc20(), fn, what)?.[0] as bigint | undefined) ?? 0n;
}

export interface SpendableRead {
  /** The block all amounts were read at. */
  block: number;
  /** Keyed by ownerTokenKey(owner, token): the pairs read. */
  amounts: Map<string, Spendable>;
  /** Keyed the same: the pairs whose token failed to answer, with why. */
  unreadable: Map<string, OwnerToken & { reason: string }>;
}

/** Duplicate pairs are read once; every batch reads the same block, so the amounts agree with each other. */
export async function readSpendable(
  rpc: ChainRpc,
  vaultRelayer: string,
  pairs: readonly OwnerToken[],
  options: ReadSpendableOptions = {},
): Promise<SpendableRead> {
  const unique = new Map<string, OwnerToken>();
  for (const { owner, token } of pairs) unique.set(ownerTokenKey(owner, token), { owner: owner.toLowerCase(), token: token.toLowerCase() });
  const list = [...unique.values()];
  const block = options.block ?? await headNumber(rpc);
  const gas = options.gas === undefined ? {} : { gas: toQuantity(options.gas) };
  const call = (to: string, data: string) => ({ method: 'eth_call', params: [{ to, data, ...gas }, toQuantity(block)] });
  const amounts = new Map<string, Spendable>();
  const unreadable = new Map<string, OwnerToken & { reason: string }>();
  // A batch's pairs are encoded, read and decoded before the next batch's are encoded, with a turn of the
  // event loop (which the gateway shares) between batches, also when the relay answers from its cache at
  // once: however many pairs the book holds, no batch holds the loop for longer than its own pairs.
  const pairsPerBatch = Math.max(1, Math.floor((options.maxBatchSize ?? 100) / 2));
  for (let from = 0; from < list.length; from += pairsPerBatch) {
    if (from > 0) await nextTurn();
    const part = list.slice(from, from + pairsPerBatch);
    const answers = await rpc.batch(
      part.flatMap(({ owner, token }) => [
        call(token, erc20().encodeFunctionData('balanceOf', [owner])),
        call(token, erc20().encodeFunctionData('allowance', [owner, vaultRelayer])),
      ]),
    );
    part.forEach((pair, i) => {
      const key = ownerTokenKey(pair.owner, pair.token);
      const balance = amountOf(answers[2 * i], 'balanceOf', `balanceOf(${pair.owner}) of ${pair.token}`);
      const allowance = amountOf(answers[2 * i + 1], 'allowance', `allowance(${pair.owner}) of ${pair.token}`);
      if (typeof balance !== 'bigint') unreadable.set(key, { ...pair, reason: balance.unreadable });
      else if (typeof allowance !== 'bigint') unreadable.set(key, { ...pair, reason: allowance.unreadable });
      else amounts.set(key, { ...pair, balance, allowance, spendable: balance < allowance ? balance : allowance });
    });
  }
  return { block, amounts, unreadable };
}
