/**
 * What may be done with a call when an upstream fails it: whether it may be sent again to another upstream,
 * whether identical calls in flight may share one answer, and which calls are tied to the node that holds
 * their state. Pure rules; the pool and the relay apply them.
 */
import type { JsonRpcErrorObject } from '../jsonrpc.js';
import type { UpstreamError } from '../errors.js';
import { DEFAULT_RELAYED_METHODS, POST_METHODS } from '../methods.js';

/** Calls that change something: repeating them could change their effect or the answer the client sees. */
const WRITE_METHODS = new Set(['eth_sendRawTransaction', 'eth_sendTransaction', 'eth_submitWork', 'eth_submitHashrate']);

/** Filters live in the memory of the node that created them. */
export const FILTER_CREATE_METHODS = new Set(['eth_newFilter', 'eth_newBlockFilter', 'eth_newPendingTransactionFilter']);
export const FILTER_USE_METHODS = new Set(['eth_getFilterChanges', 'eth_getFilterLogs', 'eth_uninstallFilter']);

/**
 * Reads: the standard methods minus writes and filters. Only these are retried on any transport fault and
 * coalesced; a method an operator adds to RELAYED_METHODS is treated like a write, since the gateway cannot
 * know that repeating it is harmless.
 */
const READ_METHODS = new Set(
  [...DEFAULT_RELAYED_METHODS, ...POST_METHODS].filter(
    (m) => !WRITE_METHODS.has(m) && !FILTER_CREATE_METHODS.has(m) && !FILTER_USE_METHODS.has(m),
  ),
);

export function isRead(method: string): boolean {
  return READ_METHODS.has(method);
}

export function isFilterMethod(method: string): boolean {
  return FILTER_CREATE_METHODS.has(method) || FILTER_USE_METHODS.has(method);
}

/**
 * Whether a call that failed with `err` may go to another upstream. A read always may, unless its answer
 * was too large (another upstream's would be as large). Anything else only when the first upstream did not
 * act on it: never reached, or busy (it refused the call for now); a transaction that may have arrived is
 * not sent again, since the second node's answer ("already known", "nonce too low") would replace the hash
 * the client expects.
 */
export function mayRetry(method: string, err: UpstreamError): boolean {
  if (err.reason === 'too-large') return false;
  return READ_METHODS.has(method) || err.reason === 'unreachable' || err.reason === 'busy';
}

/**
 * Whether an upstream failure says something about the upstream's health. A call it refused for now (busy)
 * says it is at its provider's rate limit, not broken; an answer too large says what the client asked for,
 * and any client could ask for it on purpose to have upstreams taken out.
 */
export function countsAgainstHealth(err: UpstreamError): boolean {
  return err.reason !== 'busy' && err.reason !== 'too-large' && err.reason !== 'closed';
}

/**
 * Error answers by which a provider says it is over its rate limit or capacity (HTTP 429 is handled by the
 * transport): Infura and Alchemy use -32005 "limit exceeded" / "rate limit", others -32029 or -32090 with
 * "too many requests", or plain words (the phrases eRPC recognises). The same code also means "query
 * returned more than 10000 results" on Infura, which is the client's request and no sign of load: the
 * words decide, not the code.
 */
const BUSY_MESSAGES =
  /rate limit|too many requests|limit exceeded|exceeded the quota|reached the quota|request limit reached|requests limited to|under too much load|capacity exceeded|over capacity/i;
const NOT_BUSY_MESSAGES = /returned more than|block range|too big|too large|range is too|max results/i;

export function isBusyAnswer(error: JsonRpcErrorObject): boolean {
  return typeof error.message === 'string' && BUSY_MESSAGES.test(error.message) && !NOT_BUSY_MESSAGES.test(error.message);
}

/**
 * Answers by which a node says it lacks the block or state asked for (not synced that far, pruned): another
 * upstream may well have it. Codes vary between clients, so the messages decide.
 */
const BEHIND_MESSAGES =
  /header not found|unknown block|block not found|missing trie node|state (is )?not available|historical state|not synced|pruned|BlockOutOfRange/i;

export function isBehindAnswer(method: string, error: JsonRpcErrorObject): boolean {
  return READ_METHODS.has(method) && typeof error.message === 'string' && BEHIND_MESSAGES.test(error.message);
}
