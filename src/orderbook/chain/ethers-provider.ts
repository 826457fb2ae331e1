/**
 * An ethers v6 provider whose every request goes through a ChainRpc, so that ethers' signers, contract
 * factories and transaction waits can be used over the gateway's upstream pool like over any node.
 */
import { JsonRpcApiProvider, Network, type JsonRpcError, type JsonRpcPayload, type JsonRpcResult } from 'ethers';
import type { ChainRpc } from './rpc.js';

export class ChainRpcProvider extends JsonRpcApiProvider {
  readonly #rpc: ChainRpc;

  constructor(rpc: ChainRpc, chainId: number) {
    const network = Network.from(chainId);
    // One request per batch keeps a node's error attached to its own request; no cache, so that reads after
    // a transaction see its effects.
    super(network, { staticNetwork: network, batchMaxCount: 1, cacheTimeout: -1, pollingInterval: 250 });
    this.#rpc = rpc;
  }

  override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<(JsonRpcResult | JsonRpcError)[]> {
    const payloads = Array.isArray(payload) ? payload : [payload];
    const answers = await this.#rpc.batch(payloads.map((p) => ({ method: p.method, params: p.params as unknown[] })));
    return answers.map((answer, i) =>
      answer.error
        ? { id: payloads[i].id, error: answer.error }
        : { id: payloads[i].id, result: answer.result },
    );
  }
}
