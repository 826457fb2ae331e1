/**
 * A fresh anvil for a chain test, reached two ways: as a ChainRpc over the gateway's own HTTP upstream
 * transport (the path the order book uses in the service) and as an ethers JsonRpcProvider (a client).
 */
import { JsonRpcProvider } from 'ethers';
import { Anvil } from '../../src/chain/anvil.js';
import { HttpUpstream } from '../../src/gateway/upstream/http.js';
import { UpstreamPool } from '../../src/gateway/upstream/pool.js';
import { logger } from '../../src/logger.js';
import { chainRpcOverPool, type ChainRpc } from '../../src/orderbook/chain/rpc.js';

export interface TestChain {
  anvil: Anvil;
  rpc: ChainRpc;
  provider: JsonRpcProvider;
  /** Any JSON-RPC call, e.g. anvil's evm_mine / evm_snapshot. */
  send(method: string, params?: unknown[]): Promise<any>;
  stop(): Promise<void>;
}

export async function startTestChain(options: { chainId?: number; args?: string[] } = {}): Promise<TestChain> {
  const chainId = options.chainId ?? 1;
  const anvil = new Anvil({ name: `chain-test-${chainId}`, chainId, logger, args: options.args });
  await anvil.start();
  const pool = new UpstreamPool([new HttpUpstream({ name: 'anvil', url: anvil.httpUrl, timeoutMs: 10_000 })]);
  const provider = new JsonRpcProvider(anvil.httpUrl, chainId, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 100 });
  return {
    anvil,
    rpc: chainRpcOverPool(pool),
    provider,
    send: (method, params = []) => provider.send(method, params),
    async stop() {
      provider.destroy();
      await pool.close();
      await anvil.stop();
    },
  };
}
