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
