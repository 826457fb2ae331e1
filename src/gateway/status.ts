/**
 * The gateway's part of GET /status (docs/gateway-head.md): per network its head, its cache's hit ratio
 * and each upstream's head, lag, latency, error rate and state. Read from state the networks keep anyway;
 * building it makes no upstream call.
 */
import type { NetworkEntry } from './gateway.js';
import type { NetworkStatus } from '../generated/status.js';

export type { NetworkStatus };

export function networkStatus({ network, relay }: NetworkEntry): NetworkStatus {
  const head = network.head;
  const { hits, misses } = relay.cacheCounts;
  const lookups = hits + misses;
  return {
    chainId: network.chainId,
    head: head ?? null,
    cache: { hits, misses, hitRatio: lookups === 0 ? null : Math.round((hits / lookups) * 1000) / 1000 },
    upstreams: network.pool.report(head),
  };
}
