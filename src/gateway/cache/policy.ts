/**
 * Which results can never change, and so may be cached: pure rules, no I/O.
 *
 * A result is final when the block it belongs to is final: at or below the "safe block", the higher of
 * (best head - reorg depth) and the upstream's `finalized` block. A block fetched by number above that line
 * may still be replaced by a reorganisation; so may the answer for a transaction or receipt fetched by hash,
 * since a transaction dropped from one block can be mined again in another. So every rule names the block
 * number that decides:
 *
 * - `static`: the answer never depends on a block (eth_chainId, net_version).
 * - `param`: the request names the block by number (params[index]); a tag such as "latest", a block hash, or
 *   an omitted block (which is latest: the relay writes it in, see upstream/consistency.ts) never caches.
 * - `result`: the answer carries its block number (a block's `number`, a transaction's `blockNumber`).
 *
 * null results are never cached: a block or transaction that is missing now may appear later.
 */

export type CacheRule =
  | { kind: 'static' }
  | { kind: 'param'; index: number }
  | { kind: 'result' }
  | { kind: 'logs' };

const RULES: Readonly<Record<string, CacheRule>> = {
  eth_chainId: { kind: 'static' },
  net_version: { kind: 'static' },

  eth_getBlockByNumber: { kind: 'param', index: 0 },
  eth_getBlockTransactionCountByNumber: { kind: 'param', index: 0 },
  eth_getTransactionByBlockNumberAndIndex: { kind: 'param', index: 0 },
  eth_getUncleByBlockNumberAndIndex: { kind: 'param', index: 0 },
  eth_getUncleCountByBlockNumber: { kind: 'param', index: 0 },
  // State at a past block: the same at every archive node for ever.
  eth_getBalance: { kind: 'param', index: 1 },
  eth_getCode: { kind: 'param', index: 1 },
  eth_getTransactionCount: { kind: 'param', index: 1 },
  eth_call: { kind: 'param', index: 1 },
  eth_getStorageAt: { kind: 'param', index: 2 },

  eth_getBlockByHash: { kind: 'result' },
  eth_getTransactionByHash: { kind: 'result' },
  eth_getTransactionReceipt: { kind: 'result' },
  eth_getTransactionByBlockHashAndIndex: { kind: 'result' },
  eth_getBlockReceipts: { kind: 'result' },

  eth_getLogs: { kind: 'logs' },
};

export function cacheRule(method: string): CacheRule | undefined {
  return RULES[method];
}

/** A block number written as a hex quantity (or an EIP-1898 {blockNumber}); undefined for tags and hashes. */
export function blockNumberOf(param: unknown): number | undefined {
  if (typeof param === 'object' && param !== null && 'blockNumber' in param) {
    return blockNumberOf((param as { blockNumber: unknown }).blockNumber);
  }
  if (typeof param !== 'string' || !/^0x[0-9a-fA-F]{1,13}$/.test(param)) return undefined;
  return parseInt(param, 16);
}

/** The block a result belongs to: `blockNumber` of a transaction or receipt, `number` of a block. */
function resultBlock(method: string, result: unknown): number | undefined {
  if (method === 'eth_getBlockReceipts') {
    // A list of receipts of one block; an empty list says nothing about which block it was.
    return Array.isArray(result) && result.length > 0 ? resultBlock('eth_getTransactionReceipt', result[0]) : undefined;
  }
  if (typeof result !== 'object' || result === null) return undefined;
  const field = method === 'eth_getBlockByHash' ? 'number' : 'blockNumber';
  return blockNumberOf((result as Record<string, unknown>)[field]);
}

/**
 * Whether the request may be answered from the cache at all. Requests by block number above the safe block
 * are skipped (nothing could be stored for them anyway); by-hash requests are looked up, as their entries
 * were only stored once their block was final.
 */
export function mayHaveCached(rule: CacheRule, params: unknown[], safeBlock: number | undefined): boolean {
  switch (rule.kind) {
    case 'static':
    case 'result':
      return true;
    case 'param':
      return isFinal(blockNumberOf(params[rule.index]), safeBlock);
    case 'logs':
      return logsFinal(params, safeBlock);
  }
}

/** Whether a result may be stored: not null, and of a block at or below the safe block. */
export function isCacheable(
  rule: CacheRule,
  method: string,
  params: unknown[],
  result: unknown,
  safeBlock: number | undefined,
): boolean {
  if (result === null || result === undefined) return false;
  switch (rule.kind) {
    case 'static':
      return true;
    case 'param': {
      if (!isFinal(blockNumberOf(params[rule.index]), safeBlock)) return false;
      // A block by number must be the block asked for (guards against an upstream answering another one).
      if (method === 'eth_getBlockByNumber') {
        return blockNumberOf((result as { number?: unknown }).number) === blockNumberOf(params[0]);
      }
      return true;
    }
    case 'result':
      return isFinal(resultBlock(method, result), safeBlock);
    case 'logs':
      return logsFinal(params, safeBlock);
  }
}

function isFinal(block: number | undefined, safeBlock: number | undefined): boolean {
  return block !== undefined && safeBlock !== undefined && block <= safeBlock;
}

/** The block range filter of eth_getLogs params; undefined for a blockHash filter (one block) or no filter. */
export function rangeFilterOf(params: unknown[]): { fromBlock?: unknown; toBlock?: unknown } | undefined {
  const filter = params[0] as { fromBlock?: unknown; toBlock?: unknown; blockHash?: unknown } | undefined;
  return typeof filter !== 'object' || filter === null || filter.blockHash !== undefined ? undefined : filter;
}

/** eth_getLogs over an explicit numeric range that ends at or below the safe block (a blockHash filter is not cached). */
function logsFinal(params: unknown[], safeBlock: number | undefined): boolean {
  const filter = rangeFilterOf(params);
  if (!filter) return false;
  return blockNumberOf(filter.fromBlock) !== undefined && isFinal(blockNumberOf(filter.toBlock), safeBlock);
}

/** The highest block treated as final: (head - reorg depth) or `finalized`, whichever is higher. */
export function safeBlockOf(head: number | undefined, finalized: number | undefined, reorgDepth: number): number | undefined {
  const byDepth = head === undefined ? undefined : head - reorgDepth;
  if (byDepth === undefined) return finalized;
  if (finalized === undefined) return byDepth;
  return Math.max(byDepth, finalized);
}

/**
 * The cache key of a request. Hex is case-insensitive and every cached method's params are hex, tags or
 * booleans, so the key is lower-cased to let 0xAB… and 0xab… share an entry.
 */
export function cacheKey(method: string, params: unknown[]): string {
  return `${method}:${JSON.stringify(params).toLowerCase()}`;
}
