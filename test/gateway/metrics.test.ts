/**
 * The gateway's own metric types read on /metrics exactly as prom-client's would: HistogramCells (plain
 * per-bucket numbers on the request path) against a prom-client Histogram fed the same observations.
 */
import assert from 'node:assert/strict';
import { Histogram, Registry } from 'prom-client';
import { HistogramCells } from '../../src/gateway/metrics.js';
import { registry } from '../../src/shared/metrics.js';

describe('gateway metrics', () => {
  it('HistogramCells exposes what a prom-client Histogram fed the same values exposes', async () => {
    const name = 'ethgate_test_cells_seconds';
    const config = { name, help: 'a test histogram', labelNames: ['network', 'method'] as const, buckets: [0.001, 0.01, 0.1, 1] };
    const cells = new HistogramCells(config);
    const reference = new Registry();
    const histogram = new Histogram({ ...config, labelNames: [...config.labelNames], registers: [reference] });
    const observations: [string, string, number][] = [
      ['mainnet', 'eth_call', 0.0001],
      ['mainnet', 'eth_call', 0.001], // on a bound: counted in it
      ['mainnet', 'eth_call', 0.05],
      ['mainnet', 'eth_call', 7], // above every bound: +Inf only
      ['sepolia', 'batch', 0.2],
    ];
    for (const [network, method, value] of observations) {
      cells.cell(network, method).observe(value);
      histogram.labels(network, method).observe(value);
    }
    try {
      const ours = (await registry.metrics()).split('\n\n').find((block) => block.includes(`# TYPE ${name} histogram`));
      assert.equal(ours?.trim(), (await reference.metrics()).trim());
      assert.match(ours!, new RegExp(`${name}_bucket\\{le="\\+Inf",network="mainnet",method="eth_call"\\} 4`));
    } finally {
      registry.removeSingleMetric(name);
    }
  });
});
