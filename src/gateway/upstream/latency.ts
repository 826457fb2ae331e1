/**
 * Recent call latencies of one upstream, for GET /status: the last `size` samples in a ring, and their
 * quantiles computed when asked (rarely), so recording a call costs one array write.
 */
export class LatencyWindow {
  private readonly samples: Float64Array;
  private count = 0;
  private next = 0;

  constructor(size = 512) {
    this.samples = new Float64Array(size);
  }

  record(ms: number): void {
    this.samples[this.next] = ms;
    this.next = (this.next + 1) % this.samples.length;
    if (this.count < this.samples.length) this.count++;
  }

  /** p50 and p99 in milliseconds (nearest rank), null when there is no sample yet. */
  quantiles(): { p50: number | null; p99: number | null } {
    if (this.count === 0) return { p50: null, p99: null };
    const sorted = Array.from(this.samples.subarray(0, this.count)).sort((a, b) => a - b);
    const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]);
    return { p50: at(0.5), p99: at(0.99) };
  }
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

/**
 * An upstream URL as it may be shown: no userinfo, and no path or query (providers put API keys there),
 * which is replaced by "/…" when there was one.
 */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    const hidden = (url.pathname !== '/' && url.pathname !== '') || url.search !== '';
    return `${url.protocol}//${url.host}${hidden ? '/…' : ''}`;
  } catch {
    return '(invalid url)';
  }
}
