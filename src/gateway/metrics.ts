/**
 * The gateway's Prometheus metrics, on the service's one registry (src/metrics.ts). Label values are
 * bounded: networks and upstreams come from the configuration, methods from `methodLabel` (a method the
 * gateway does not know is "other"), statuses from the HTTP status table.
 *
 * The hot path stays cheap: prom-client validates and hashes the label values on every inc() and observe(),
 * even through a labelled child, so per-request counters are plain numbers (`CounterCells`) added to their
 * prom-client Counter when /metrics is scraped, and the one histogram on the request path (upstream
 * latency) counts into plain per-bucket numbers (`HistogramCells`) that the registry reads on a scrape.
 */
import { Counter, Gauge, type CounterConfiguration, type Metric } from 'prom-client';
import { registry } from '../shared/metrics.js';
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

/** One label set's pending increments. */
export interface CounterCell {
  pending: number;
}

/**
 * Increments of a Counter kept as plain numbers per label set and added to the Counter each time the
 * registry collects it (on a scrape). `cell(a, b, ...)` returns the same cell for the same label values.
 */
export class CounterCells<L extends string> {
  readonly counter: Counter<L>;
  private readonly labelNames: readonly L[];
  private readonly cells = new Map<string, { cell: CounterCell; labels: Partial<Record<L, string>> }>();

  constructor(config: Omit<CounterConfiguration<L>, 'collect' | 'registers'>) {
    this.labelNames = config.labelNames ?? [];
    const cells = this.cells;
    this.counter = new Counter<L>({
      ...config,
      registers: [registry],
      collect() {
        for (const { cell, labels } of cells.values()) {
          if (cell.pending === 0) continue;
          this.inc(labels, cell.pending);
          cell.pending = 0;
        }
      },
    });
  }

  cell(...values: string[]): CounterCell {
    const key = values.join('\u0000');
    let entry = this.cells.get(key);
    if (!entry) {
      const labels: Partial<Record<L, string>> = {};
      this.labelNames.forEach((name, i) => (labels[name] = values[i]));
      entry = { cell: { pending: 0 }, labels };
      this.cells.set(key, entry);
    }
    return entry.cell;
  }
}

/** One label set of a HistogramCells: what it observed, in plain numbers. */
export class HistogramCell {
  /** Observations per bucket (not cumulative); the last counts those above every bound. */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]) i++;
    this.counts[i]++;
    this.sum += value;
    this.count++;
  }
}

/**
 * A histogram whose label sets are HistogramCells, served in prom-client's registry: on a scrape the
 * registry asks it for its values as it asks prom-client's own Histogram (buckets with `le`, `_sum`,
 * `_count`), so /metrics reads the same. `cell(a, b, ...)` returns the same cell for the same label values.
 */
export class HistogramCells<L extends string> {
  private readonly cells = new Map<string, { cell: HistogramCell; labels: Record<string, string> }>();

  constructor(private readonly config: { name: string; help: string; labelNames: readonly L[]; buckets: readonly number[] }) {
    const cells = this.cells;
    const { name, help, buckets } = config;
    const get = async () => {
      const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
      for (const { cell, labels } of cells.values()) {
        let cumulative = 0;
        buckets.forEach((le, i) => {
          cumulative += cell.counts[i];
          values.push({ metricName: `${name}_bucket`, labels: { le, ...labels }, value: cumulative });
        });
        values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', ...labels }, value: cell.count });
        values.push({ metricName: `${name}_sum`, labels, value: cell.sum });
        values.push({ metricName: `${name}_count`, labels, value: cell.count });
      }
      return { name, help, type: 'histogram', values, aggregator: 'sum' };
    };
    // The registry needs only these members of a metric (name, get, reset); prom-client types a metric as
    // one of its own classes, hence the cast.
    registry.registerMetric({ name, help, get, reset: () => cells.clear() } as unknown as Metric);
  }

  cell(...values: string[]): HistogramCell {
    const key = values.join('\u0000');
    let entry = this.cells.get(key);
    if (!entry) {
      const labels: Record<string, string> = {};
      this.config.labelNames.forEach((name, i) => (labels[name] = values[i]));
      entry = { cell: new HistogramCell(this.config.buckets), labels };
      this.cells.set(key, entry);
    }
    return entry.cell;
  }
}

export const metrics = {
  requests: new CounterCells({
    name: 'ethgate_gateway_requests_total',
    help: 'Client requests (HTTP requests and WebSocket messages) by network, channel, JSON-RPC method ("batch" for a batch) and HTTP status',
    labelNames: ['network', 'channel', 'method', 'status'] as const,
  }),
  upstreamDuration: new HistogramCells({
    name: 'ethgate_upstream_request_duration_seconds',
    help: 'Latency of requests to upstreams, by upstream and method ("batch" for a batch), failures included',
    labelNames: ['network', 'upstream', 'method'] as const,
    buckets: LATENCY_BUCKETS,
  }),
  upstreamCalls: new CounterCells({
    name: 'ethgate_upstream_calls_total',
    help: 'JSON-RPC calls sent to upstreams (each call of a batch counts), by outcome: result, error (an error object) or failed (transport)',
    labelNames: ['network', 'upstream', 'method', 'outcome'] as const,
  }),
  upstreamExchanges: new CounterCells({
    name: 'ethgate_upstream_exchanges_total',
    help: "HTTP exchanges with upstreams, by kind: single (one call), batch (a turn's calls the gateway sent together; UPSTREAM_BATCH_CALLS) or client_batch (a client's batch relayed as one)",
    labelNames: ['network', 'upstream', 'kind'] as const,
  }),
  upstreamBatchedCalls: new CounterCells({
    name: 'ethgate_upstream_batched_calls_total',
    help: 'Calls the gateway sent to upstreams inside its own batches (divided by the batch exchanges: calls per batch)',
    labelNames: ['network', 'upstream'] as const,
  }),
  upstreamBatchRefusals: new CounterCells({
    name: 'ethgate_upstream_batch_refusals_total',
    help: 'Batches an upstream refused (its calls then went alone, and single calls only for the next minute)',
    labelNames: ['network', 'upstream'] as const,
  }),
  upstreamRetries: new Counter({
    name: 'ethgate_upstream_retries_total',
    help: 'Calls or batches sent again to another upstream after a transport fault or a "node is behind" answer',
    labelNames: ['network', 'reason'] as const,
    registers: [registry],
  }),
  upstreamHedges: new Counter({
    name: 'ethgate_upstream_hedges_total',
    help: 'Hedged reads: another upstream asked because the first was slower than the quantile (HEDGE_QUANTILE); won: its answer was the one returned, lost: another came first, limited: not sent, the caller\'s rate limit was spent',
    labelNames: ['network', 'method', 'outcome'] as const,
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
  networkHead: new Gauge({
    name: 'ethgate_network_head_block',
    help: "The network's head as its head tracker holds it",
    labelNames: ['network'] as const,
    registers: [registry],
  }),
  reorgs: new Counter({
    name: 'ethgate_reorgs_total',
    help: 'Reorganisations the head tracker saw, and the blocks they removed (label what="blocks")',
    labelNames: ['network', 'what'] as const,
    registers: [registry],
  }),
  upstreamStateChanges: new Counter({
    name: 'ethgate_upstream_state_changes_total',
    help: 'Times an upstream was taken out of rotation (to="out") or put back (to="in")',
    labelNames: ['network', 'upstream', 'to'] as const,
    registers: [registry],
  }),
  cacheHits: new CounterCells({
    name: 'ethgate_cache_hits_total',
    help: 'Reads answered from the cache, by tier (memory or redis)',
    labelNames: ['network', 'method', 'tier'] as const,
  }),
  cacheMisses: new CounterCells({
    name: 'ethgate_cache_misses_total',
    help: 'Cacheable reads not found in any cache tier',
    labelNames: ['network', 'method'] as const,
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
  coalesced: new CounterCells({
    name: 'ethgate_coalesced_calls_total',
    help: 'Reads answered by joining an identical read already in flight instead of a new upstream call',
    labelNames: ['network', 'method'] as const,
  }),
};
