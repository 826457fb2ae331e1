/**
 * The order book network as the order book sees it (src/orderbook/chain/port.ts), wired from the gateway's
 * network of ORDERBOOK_NETWORK: calls through its upstream pool (the same failover as every client of the
 * gateway), heads from its head tracker, and, when it is the embedded anvil, the dev chain hook that
 * deploys the GPv2 contracts (src/wiring/gpv2.ts) and hears of the chain's restarts.
 */
import type { Network } from '../gateway/network.js';
import type { OrderbookNetwork } from '../orderbook/chain/port.js';
import { chainRpcOver } from '../orderbook/chain/rpc.js';
import { bootstrapDevChain } from './gpv2.js';

export function orderbookNetworkOf(network: Network): OrderbookNetwork {
  const anvil = network.anvil;
  return {
    name: network.name,
    rpc: chainRpcOver(network.pool),
    heads: network.tracker,
    ...(anvil
      ? {
          devChain: {
            // Impersonating the authenticator's manager takes anvil's own methods: straight to anvil.
            bootstrap: (rpc) => bootstrapDevChain(rpc, { controlUrl: anvil.httpUrl }),
            onRestart: (listener: () => void) => void anvil.on('restarted', listener),
          },
        }
      : {}),
  };
}
