// A market's depth: the open orders of both sides as cumulative amounts of the base token (in its units) by
// limit price (quote units per base unit), drawn with uPlot. Asks sell the base, bids buy it.
import { html } from './html.js';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { ratio, units } from './format.js';

/**
 * { xs, asks, bids }: prices ascending, cumulative ask depth up to each price, bid depth down to it.
 * `base` and `quote` are addresses; `bd` and `qd` their tokens' decimals.
 */
export function depthSeries(base, quote, orders, bd, qd) {
  const asks = [];
  const bids = [];
  for (const o of orders) {
    const sell = o.sellToken.toLowerCase();
    const buy = o.buyToken.toLowerCase();
    if (sell === base && buy === quote) asks.push([ratio(o.buyAmount, o.sellAmount, qd, bd), units(o.sellAmount, bd)]);
    else if (sell === quote && buy === base) bids.push([ratio(o.sellAmount, o.buyAmount, qd, bd), units(o.buyAmount, bd)]);
  }
  const xs = [...new Set([...asks, ...bids].map(([p]) => p).filter(Number.isFinite))].sort((a, b) => a - b);
  asks.sort((a, b) => a[0] - b[0]);
  bids.sort((a, b) => b[0] - a[0]);
  const askDepth = new Array(xs.length).fill(null);
  const bidDepth = new Array(xs.length).fill(null);
  let sum = 0;
  let i = 0;
  for (let k = 0; k < xs.length; k++) {
    while (i < asks.length && asks[i][0] <= xs[k]) sum += asks[i++][1];
    if (asks.length > 0 && xs[k] >= asks[0][0]) askDepth[k] = sum;
  }
  sum = 0;
  i = 0;
  for (let k = xs.length - 1; k >= 0; k--) {
    while (i < bids.length && bids[i][0] >= xs[k]) sum += bids[i++][1];
    if (bids.length > 0 && xs[k] <= bids[0][0]) bidDepth[k] = sum;
  }
  return { xs, asks: askDepth, bids: bidDepth };
}

/** `base` and `quote` are the tokens' {symbol, decimals}; the addresses name the market. */
export function DepthChart({ base, quote, baseAddress, quoteAddress, orders, version }) {
  const box = useRef(null);
  const plot = useRef(null);
  useEffect(() => {
    const { xs, asks, bids } = depthSeries(baseAddress, quoteAddress, orders, base.decimals, quote.decimals);
    const data = [xs, asks, bids];
    if (!plot.current) {
      plot.current = new uPlot(
        {
          width: Math.max(320, box.current.clientWidth || 800),
          height: 300,
          scales: { x: { time: false } },
          axes: [{ label: `limit price (${quote.symbol} per ${base.symbol})` }, { label: `cumulative amount (${base.symbol})` }],
          series: [
            { label: 'price' },
            { label: 'asks (sell base)', stroke: '#d1242f', fill: 'rgba(209,36,47,0.12)', paths: uPlot.paths.stepped({ align: 1 }) },
            { label: 'bids (buy base)', stroke: '#1a7f37', fill: 'rgba(26,127,55,0.12)', paths: uPlot.paths.stepped({ align: -1 }) },
          ],
        },
        data,
        box.current,
      );
    } else {
      plot.current.setData(data);
    }
  }, [baseAddress, quoteAddress, version]);
  useEffect(() => () => plot.current?.destroy(), []);
  return html`<div class="chart card" ref=${box} data-testid="depth-chart"></div>`;
}
