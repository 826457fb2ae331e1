/**
 * Limits on what one call may ask of an upstream, checked before it is sent. (Body size, batch size and
 * subscriptions per connection are checked where requests are read; see channels/.)
 */
import { rpcErrors } from './errors.js';
import { blockNumberOf, rangeFilterOf } from './cache/policy.js';

export interface ChainPosition {
  head: number | undefined;
  finalized: number | undefined;
}

/** A block parameter as a number: tags resolve against the known head; undefined when it cannot be told. */
function resolveBlock(param: unknown, chain: ChainPosition): number | undefined {
  switch (param ?? 'latest') {
    case 'earliest':
      return 0;
    case 'finalized':
      return chain.finalized ?? chain.head;
    case 'latest':
    case 'pending':
    case 'safe':
      return chain.head;
    default:
      return blockNumberOf(param);
  }
}

/**
 * eth_getLogs may span at most `maxRange` blocks (toBlock - fromBlock); wider queries are refused with
 * -32602 rather than split, so that the client, which knows how it wants to page, does the splitting. A
 * blockHash filter names one block and is always fine. 0 turns the check off.
 */
export function checkLogsRange(params: unknown[], maxRange: number, chain: ChainPosition): void {
  if (maxRange === 0) return;
  const filter = rangeFilterOf(params);
  if (!filter) return;
  const from = resolveBlock(filter.fromBlock, chain);
  const to = resolveBlock(filter.toBlock, chain);
  if (from === undefined || to === undefined || to - from <= maxRange) return;
  const shown = (param: unknown, value: number) =>
    typeof param === 'string' && !param.startsWith('0x') ? `"${param}" (${value})` : String(value);
  throw rpcErrors.invalidParams(
    `eth_getLogs block range too large: fromBlock ${shown(filter.fromBlock ?? 'latest', from)} to toBlock ` +
      `${shown(filter.toBlock ?? 'latest', to)} spans ${to - from} blocks, more than the limit of ${maxRange}; ` +
      'split the query into smaller ranges',
  );
}

/** Most sub-ranges one split eth_getLogs may become; wider requests are refused as without splitting. */
export const MAX_LOGS_PARTS = 1_000;

/**
 * GETLOGS_SPLIT_BLOCKS: the params of the sub-requests an over-range eth_getLogs becomes (consecutive
 * ranges of at most `partBlocks` blocks, and never more than `maxRange`, in order), or undefined when the
 * request is within range, names a blockHash, cannot be resolved, or would need more than MAX_LOGS_PARTS.
 */
export function splitLogsRange(
  params: unknown[],
  maxRange: number,
  partBlocks: number,
  chain: ChainPosition,
): unknown[][] | undefined {
  if (partBlocks <= 0 || maxRange === 0) return undefined;
  const filter = rangeFilterOf(params);
  if (!filter) return undefined;
  const from = resolveBlock(filter.fromBlock, chain);
  const to = resolveBlock(filter.toBlock, chain);
  if (from === undefined || to === undefined || to - from <= maxRange) return undefined;
  // A part of n blocks spans n - 1 (toBlock - fromBlock), which the range limit counts.
  const size = Math.min(partBlocks, maxRange + 1);
  if (Math.ceil((to - from + 1) / size) > MAX_LOGS_PARTS) return undefined;
  const parts: unknown[][] = [];
  const hex = (n: number) => '0x' + n.toString(16);
  for (let start = from; start <= to; start += size) {
    parts.push([{ ...(params[0] as object), fromBlock: hex(start), toBlock: hex(Math.min(to, start + size - 1)) }, ...params.slice(1)]);
  }
  return parts;
}
