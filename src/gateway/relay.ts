/**
 * The path of a checked request from a channel to the network's upstreams. Channels call `call` for one
 * request and `batch` for several; both give what the upstream answered (result or error object). A fault
 * of the gateway or of the upstream transport is an RpcError: thrown by `call`, returned in place by `batch`.
 */
import type { CheckedRequest, RpcOutcome } from './jsonrpc.js';
import { RpcError } from './errors.js';
import type { Network } from './network.js';

export class Relay {
  constructor(readonly network: Network) {}

  async call(request: CheckedRequest): Promise<RpcOutcome> {
    return this.network.pool.send({ method: request.method, params: request.params });
  }

  /** One upstream batch for all of `requests`; a transport fault fails each of them. */
  async batch(requests: CheckedRequest[]): Promise<(RpcOutcome | RpcError)[]> {
    if (requests.length === 0) return [];
    try {
      if (requests.length === 1) return [await this.call(requests[0])];
      return await this.network.pool.sendBatch(requests.map((r) => ({ method: r.method, params: r.params })));
    } catch (err) {
      if (!(err instanceof RpcError)) throw err;
      return requests.map(() => err);
    }
  }
}
