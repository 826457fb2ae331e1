/**
 * Rules for a consistent head across upstreams at different heights, without I/O:
 * - which block a request names by number (so that it is not sent to an upstream whose head is below it),
 * - which `null` answers mean "this node does not have it yet" when the block is at or below the network's
 *   head (so that another upstream is asked before the client gets null),
 * - the block an omitted block parameter stands for (`latest`, written in before the call leaves),
 * - the floor under eth_blockNumber (a client never sees it go backwards because the gateway switched to a
 *   node that lags).
 */
import type { RpcOutcome } from '../jsonrpc.js';
import type { UpstreamCall } from './types.js';

/** Methods whose block parameter is at this position (block number or tag). */
const BLOCK_PARAM: Record<string, number> = {
  eth_getBlockByNumber: 0,
  eth_getBlockTransactionCountByNumber: 0,
  eth_getUncleCountByBlockNumber: 0,
  eth_getTransactionByBlockNumberAndIndex: 0,
  eth_getUncleByBlockNumberAndIndex: 0,
  eth_getBlockReceipts: 0,
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_getTransactionCount: 1,
  eth_getStorageAt: 2,
  eth_call: 1,
  eth_estimateGas: 1,
  eth_getProof: 2,
  eth_getStorageValues: 1,
  eth_getBlockAccessList: 0,
};

/**
 * Methods whose block parameter the specification makes optional, "default: 'latest'", at this position.
 * The gateway writes the `latest` in itself (see withDefaultBlock): nodes that predate the optional form
 * (anvil, older geth) refuse the call without it, and every rule here and in cache/policy.ts then sees the
 * tag it stands for.
 */
const LATEST_BY_DEFAULT: Record<string, number> = {
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_getTransactionCount: 1,
  eth_getStorageAt: 2,
  eth_getProof: 2,
  eth_getStorageValues: 1,
};

/** The call with `latest` in place of an omitted block parameter the specification defaults to latest. */
export function withDefaultBlock(call: UpstreamCall): UpstreamCall {
  const at = LATEST_BY_DEFAULT[call.method];
  if (at === undefined || call.params.length !== at) return call;
  return { method: call.method, params: [...call.params, 'latest'] };
}

/** Methods whose `null` for a block the network has means the node lacks it (not that it does not exist). */
const NULL_MEANS_BEHIND = new Set([
  'eth_getBlockByNumber',
  'eth_getBlockTransactionCountByNumber',
  'eth_getUncleCountByBlockNumber',
  'eth_getBlockReceipts',
]);

/** The block number a call names explicitly (a hex quantity or {blockNumber}); undefined for tags and hashes. */
export function requestedBlock(method: string, params: readonly unknown[]): number | undefined {
  const at = BLOCK_PARAM[method];
  if (at === undefined) return undefined;
  let value = params[at];
  if (value && typeof value === 'object' && 'blockNumber' in value) value = (value as { blockNumber: unknown }).blockNumber;
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,16}$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Whether a null answer to this call should be asked of another upstream (its block is at/below `head`). */
export function nullMeansBehind(method: string, params: readonly unknown[], head: number | undefined): boolean {
  if (!NULL_MEANS_BEHIND.has(method) || head === undefined) return false;
  const block = requestedBlock(method, params);
  return block !== undefined && block <= head;
}

/**
 * An eth_blockNumber answer no lower than `floor` (the highest head the gateway has seen or answered); the
 * answer's own value when it is higher, or not a block number.
 */
export function atLeast(outcome: RpcOutcome, floor: number | undefined): RpcOutcome {
  if (floor === undefined || outcome.error !== undefined || typeof outcome.result !== 'string') return outcome;
  const n = Number(outcome.result);
  if (!Number.isSafeInteger(n) || n >= floor) return outcome;
  return { result: '0x' + floor.toString(16) };
}
