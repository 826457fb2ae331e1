/* Generated from schemas/status.schema.json by `npm run gen:types`. Do not edit. */

/**
 * The body of GET /status (docs/gateway-head.md): each network's head, cache and upstreams, and the order book's state.
 */
export interface ServiceStatus {
  networks: {
    [k: string]: NetworkStatus;
  };
  orderbook: OrderbookStatus;
}
export interface NetworkStatus {
  chainId: number;
  /**
   * The network's head (highest block seen by the head tracker); null if unknown.
   */
  head: number | null;
  cache: {
    hits: number;
    misses: number;
    /**
     * hits / (hits + misses); null before any lookup.
     */
    hitRatio: number | null;
  };
  upstreams: UpstreamReport[];
}
export interface UpstreamReport {
  /**
   * Stable label (<network>-<index>, or <network>-embedded); never the URL.
   */
  id: string;
  /**
   * Without userinfo; a path or query shows as /….
   */
  url: string | null;
  transport: 'http' | 'ws';
  head: number | null;
  /**
   * Network head - upstream head; null if unknown.
   */
  lag: number | null;
  latencyMs: {
    p50: number | null;
    p99: number | null;
  };
  errorRate: number;
  state: 'in' | 'out';
  /**
   * Only when out.
   */
  reason?: string;
}
export interface OrderbookStatus {
  state: 'up' | 'starting' | 'down';
  /**
   * Only when not up.
   */
  reason?: string;
  indexerBlock: number | null;
  role: 'leader' | 'follower' | null;
}
