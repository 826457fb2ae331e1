/**
 * The upstreams of one network and the choice among them. A call goes to the first usable upstream in
 * preference order; on a transport fault it moves on to the next one when repeating the call is harmless:
 * always for reads, and for eth_sendRawTransaction only when the first upstream was never reached (so a
 * transaction is not sent twice in a way that changes what the client sees).
 */
import { UpstreamError } from '../errors.js';
import type { RpcOutcome } from '../jsonrpc.js';
import type { UpstreamCall, UpstreamTransport } from './types.js';

/** Methods whose repetition on another upstream could change their effect. */
const SUBMIT_METHODS = new Set(['eth_sendRawTransaction', 'eth_submitWork', 'eth_submitHashrate']);

export function isRetryable(call: UpstreamCall, err: UpstreamError): boolean {
  if (!SUBMIT_METHODS.has(call.method)) return true;
  return err.reason === 'unreachable';
}

export class UpstreamPool {
  constructor(readonly upstreams: UpstreamTransport[]) {
    if (upstreams.length === 0) throw new Error('a network needs at least one upstream');
  }

  /** Upstreams in the order they should be tried. */
  protected candidates(): UpstreamTransport[] {
    return this.upstreams;
  }

  async send(call: UpstreamCall): Promise<RpcOutcome> {
    return this.withFailover((u) => u.send(call), (err) => isRetryable(call, err));
  }

  async sendBatch(calls: UpstreamCall[]): Promise<RpcOutcome[]> {
    return this.withFailover(
      (u) => u.sendBatch(calls),
      (err) => calls.every((call) => isRetryable(call, err)),
    );
  }

  private async withFailover<T>(
    attempt: (upstream: UpstreamTransport) => Promise<T>,
    retryable: (err: UpstreamError) => boolean,
  ): Promise<T> {
    let lastError: UpstreamError | undefined;
    for (const upstream of this.candidates()) {
      try {
        return await attempt(upstream);
      } catch (err) {
        if (!(err instanceof UpstreamError)) throw err;
        lastError = err;
        if (!retryable(err)) break;
      }
    }
    throw lastError!;
  }

  async close(): Promise<void> {
    await Promise.all(this.upstreams.map((u) => u.close()));
  }
}
