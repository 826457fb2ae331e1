import { UpstreamError } from '../errors.js';
import type { RpcOutcome } from '../jsonrpc.js';

/** Turns one JSON-RPC response object from an upstream into an outcome, or says why it is not one. */
export function toOutcome(value: unknown, upstream: string): RpcOutcome {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const msg = value as { result?: unknown; error?: unknown };
    if (msg.error !== undefined && msg.error !== null) {
      const error = msg.error as { code?: unknown; message?: unknown };
      if (typeof error === 'object' && typeof error.code === 'number' && typeof error.message === 'string') {
        return { error: msg.error as RpcOutcome['error'] & object };
      }
    } else if ('result' in msg) {
      return { result: msg.result };
    }
  }
  throw new UpstreamError('bad-response', upstream, 'answered something that is not a JSON-RPC response');
}

/** Matches a batch answer to the calls by id (0..n-1); a missing answer is the upstream's fault. */
export function batchOutcomes(value: unknown, count: number, upstream: string): RpcOutcome[] {
  if (!Array.isArray(value)) {
    // Some clients answer a whole batch with one error object (e.g. batch too large): every call gets it.
    const single = toOutcome(value, upstream);
    if (single.error) return Array.from({ length: count }, () => single);
    throw new UpstreamError('bad-response', upstream, 'answered a batch with a single result');
  }
  const byId = new Map<number, unknown>();
  for (const item of value) {
    const id = (item as { id?: unknown } | null)?.id;
    if (typeof id === 'number') byId.set(id, item);
  }
  return Array.from({ length: count }, (_, i) => {
    if (!byId.has(i)) throw new UpstreamError('bad-response', upstream, `left call ${i} of a batch unanswered`);
    return toOutcome(byId.get(i), upstream);
  });
}
