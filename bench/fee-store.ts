/**
 * Fee requests (issue 29, item 2): GET /api/v1/tokens/{t}/fee keeps each quote for the fee rule, and that
 * store must cost the same per request however many came before. A service child (SQLite, an external
 * anvil with the dev contracts, two tokens priced by the table) answers `warmup` fee requests for one token
 * (the code warmed up, that token's store left aside), then `requests` for the other, `concurrency` in flight; the service's CPU time (/proc) is taken over the first and the last `window` of them, and the
 * figure is their ratio (target: last / first ≤ 1.2), besides each window's CPU per request.
 * Run alone: `node dist/bench/run.js fees` (BENCH_FEE_REQUESTS=50000, BENCH_FEE_WINDOW=10000 to change the counts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { bootstrapDevChain } from '../src/wiring/gpv2.js';
import { startTestChain } from '../test/support/chain.js';
import { spawnService, type ServiceProcess } from '../test/support/process.js';
import { cpuSeconds, freePort, printTargets, round, type Figure } from './tools.js';

export interface FeeBenchOptions {
  warmup?: number;
  requests?: number;
  window?: number;
  concurrency?: number;
}

export async function benchFeeStore(options: FeeBenchOptions = {}): Promise<Record<string, Figure>> {
  const requests = options.requests ?? Number(process.env.BENCH_FEE_REQUESTS ?? 50_000);
  const window = options.window ?? Number(process.env.BENCH_FEE_WINDOW ?? 10_000);
  const warmup = options.warmup ?? 5_000;
  const concurrency = options.concurrency ?? 8;
  if (window * 2 > requests) throw new Error(`the two windows of ${window} do not fit in ${requests} requests`);
  const chain = await startTestChain({ chainId: 1 });
  const dataDir = mkdtempSync(join(tmpdir(), 'ethgate-bench-fees-'));
  let service: ServiceProcess | undefined;
  let pool: Pool | undefined;
  try {
    const dev = await bootstrapDevChain(chain.rpc);
    const env: Record<string, string> = {
      PORT: String(await freePort()),
      DATA_DIR: dataDir,
      NETWORKS: 'mainnet',
      ORDERBOOK: 'on',
      UPSTREAM_MAINNET: chain.anvil.httpUrl,
      SETTLEMENT_CONTRACT: dev.settlement,
      TOKEN_PRICES: `${dev.tokens.TKA}=1,${dev.tokens.TKB}=2`,
      LOG_LEVEL: 'warn',
    };
    service = await spawnService(env);
    pool = new Pool(`http://127.0.0.1:${env.PORT}`, { connections: concurrency, pipelining: 1 });
    const path = `/api/v1/tokens/${dev.tokens.TKA}/fee`;
    const pid = service.child.pid!;
    const ask = async (to: string, n: number) => {
      const res = await pool!.request({ path: to, method: 'GET' });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`fee request ${n} answered ${res.statusCode}`);
    };
    let warmed = 0;
    const warm = async () => {
      for (let n = warmed++; n < warmup; n = warmed++) await ask(`/api/v1/tokens/${dev.tokens.TKB}/fee`, n);
    };
    await Promise.all(Array.from({ length: concurrency }, warm));
    let sent = 0;
    const marks = new Map<number, number>();
    const mark = (at: number) => marks.set(at, cpuSeconds(pid));
    // Each client takes the next request number; the marks are read when the request at a window's edge
    // is about to be sent, with the requests in flight then counted where they started (at most concurrency).
    const edges = new Set([0, window, requests - window]);
    const client = async () => {
      for (;;) {
        const n = sent++;
        if (n >= requests) return;
        if (edges.has(n)) mark(n);
        await ask(path, n);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, client));
    mark(requests);
    const first = (marks.get(window)! - marks.get(0)!) / window;
    const last = (marks.get(requests)! - marks.get(requests - window)!) / window;
    const figures: Record<string, Figure> = {
      'fees.first_window.cpu_per_request': { value: round(first * 1e6, 1), unit: 'µs' },
      'fees.last_window.cpu_per_request': { value: round(last * 1e6, 1), unit: 'µs' },
      'fees.last_over_first': { value: round(last / first, 2), unit: 'ratio' },
    };
    console.error(
      `fees: ${requests} GET ${path}, CPU per request first ${window}: ${round(first * 1e6)} µs, last ${window}: ${round(last * 1e6)} µs`,
    );
    printTargets('fees', figures, [{ label: 'CPU per fee request, last window / first', key: 'fees.last_over_first', atMost: 1.2 }]);
    return figures;
  } finally {
    await pool?.close();
    await service?.stop();
    await chain.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
