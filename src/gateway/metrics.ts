/**
 * The gateway's Prometheus metrics, on the service's one registry (src/metrics.ts). Label values are
 * bounded: networks and upstreams come from the configuration, methods from `methodLabel` (a method the
 * gateway does not know is "other"), statuses from the HTTP status table.
 *
 * The hot path records through small caches of labelled children, because prom-client hashes the label
 * object on every `labels()` call.
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import { registry } from '../metrics.js';
import { DEFAULT_RELAYED_METHODS, SUBSCRIPTION_METHODS } from './methods.js';

const KNOWN_METHODS = new Set<string>([...DEFAULT_RELAYED_METHODS, ...SUBSCRIPTION_METHODS]);

/** Adds the operator's own relayed methods to the label set (they come from the config, so they are few). */
export function knowMethods(methods: Iterable<string>): void {
  for (const method of methods) KNOWN_METHODS.add(method);
}

/** The method label: the method when the gateway knows it, else "other" (clients choose method names). */
export function methodLabel(method: unknown): string {
  return typeof method === 'string' && KNOWN_METHODS.has(method) ? method : 'other';
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const metrics = {
  requests: new Counter({
    name: 'ethgate_gateway_requests_total',
    help: 'Client requests (HTTP requests and WebSocket messages) by network, channel, JSON-RPC method ("batch" for a batch) and HTTP status',
    labelNames: ['network', 'channel', 'method', 'status'] as const,
    registers: [registry],
  }),
  requestDuration: new Histogram({
    name: 'ethgate_gateway_request_duration_seconds',
    help: 'Time from a client request to its answer, by network and channel',
    labelNames: ['network', 'channel'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  upstreamDuration: new Histogram({
    name: 'ethgate_upstream_request_duration_seconds',
    help: 'Latency of requests to upstreams, by upstream and method ("batch" for a batch), failures included',
    labelNames: ['network', 'upstream', 'method'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  upstreamCalls: new Counter({
    name: 'ethgate_upstream_calls_total',
    help: 'JSON-RPC calls sent to upstreams (each call of a batch counts), by outcome: result, error (an error object) or failed (transport)',
    labelNames: ['network', 'upstream', 'method', 'outcome'] as const,
    registers: [registry],
  }),
  upstreamRetries: new Counter({
    name: 'ethgate_upstream_retries_total',
    help: 'Calls or batches sent again to another upstream after a transport fault or a "node is behind" answer',
    labelNames: ['network', 'reason'] as const,
    registers: [registry],
  }),
  upstreamHealthy: new Gauge({
    name: 'ethgate_upstream_healthy',
    help: '1 while an upstream is in rotation, 0 while it is taken out',
    labelNames: ['network', 'upstream', 'role'] as const,
    registers: [registry],
  }),
  upstreamHead: new Gauge({
    name: 'ethgate_upstream_head_block',
    help: 'Latest block number an upstream reported to the health check',
    labelNames: ['network', 'upstream'] as const,
    registers: [registry],
  }),
  upstreamStateChanges: new Counter({
    name: 'ethgate_upstream_state_changes_total',
    help: 'Times an upstream was taken out of rotation (to="out") or put back (to="in")',
    labelNames: ['network', 'upstream', 'to'] as const,
    registers: [registry],
  }),
  cacheHits: new Counter({
    name: 'ethgate_cache_hits_total',
    help: 'Reads answered from the cache, by tier (memory or redis)',
    labelNames: ['network', 'method', 'tier'] as const,
    registers: [registry],
  }),
  cacheMisses: new Counter({
    name: 'ethgate_cache_misses_total',
    help: 'Cacheable reads not found in any cache tier',
    labelNames: ['network', 'method'] as const,
    registers: [registry],
  }),
  cacheStores: new Counter({
    name: 'ethgate_cache_stores_total',
    help: 'Results written to the cache (only results of blocks deep enough to be final)',
    labelNames: ['network', 'method'] as const,
    registers: [registry],
  }),
  cacheErrors: new Counter({
    name: 'ethgate_cache_errors_total',
    help: 'Failed Redis cache reads or writes (the request goes on without the cache)',
    labelNames: ['operation'] as const,
    registers: [registry],
  }),
  coalesced: new Counter({
    name: 'ethgate_coalesced_calls_total',
    help: 'Reads answered by joining an identical read already in flight instead of a new upstream call',
    labelNames: ['network', 'method'] as const,
    registers: [registry],
  }),
  rateLimited: new Counter({
    name: 'ethgate_rate_limited_total',
    help: 'Requests refused with 429, by the limit that refused them (ip or key)',
    labelNames: ['scope'] as const,
    registers: [registry],
  }),
  unauthorized: new Counter({
    name: 'ethgate_unauthorized_total',
    help: 'Requests refused with 401 for a missing or unknown API key',
    labelNames: ['reason'] as const,
    registers: [registry],
  }),
};

/** A per-label-tuple cache of prom-client children, keyed by the joined label values. */
export function childCache<T>(make: (...labels: string[]) => T): (...labels: string[]) => T {
  const children = new Map<string, T>();
  return (...labels: string[]) => {
    const key = labels.join('\u0000');
    let child = children.get(key);
    if (child === undefined) {
      child = make(...labels);
      children.set(key, child);
    }
    return child;
  };
}
