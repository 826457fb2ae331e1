/**
 * `npm run bench -- abuse`: what one anonymous attacker's traffic costs everyone else (issue 29). One
 * service process (the order book on a dev chain, its log holding 20,000 synthetic events) serves a
 * bystander (bystander.ts, a worker thread: a cached gateway call and one order by UID every 10 ms) while
 * each attack runs in turn; the bystander's p99 during each is reported beside its p99 with no attack,
 * measured in the same run. The attacks come from many client addresses (X-Forwarded-For behind
 * TRUST_PROXY=1), the case the per-address caps do not stop:
 * - stalled SSE catch-ups: 500 GET /api/v1/events/stream?after=0 that never read (also: the service's
 *   resident memory before them and the most it reached while they stall);
 * - WebSocket: 100 connections holding 32 subscriptions each (newHeads and unfiltered logs) that never read,
 *   a block mined every 100 ms on their network, and 20 connections sending requests with 32 KB ids without
 *   reading;
 * - floods by wrk (50 connections; 8 for listings): GET /api/v1/tokens/{t}/fee, POST /api/v1/quote, GET
 *   /api/v1/orders with every include flag, GET /healthz.
 * Targets: bystander p99 <= 50 ms during each attack; RSS growth <= 200 MB for the 500 stalled catch-ups.
 * BENCH_ABUSE_ATTACKS=<name>,... runs only those attacks (beside `none`); BENCH_SERVICE_NODE_ARGS='--cpu-prof
 * --cpu-prof-dir=/tmp/prof' profiles the service.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { parseUnits, toBeHex } from 'ethers';
import WebSocket from 'ws';
import { bootstrapDevChain } from '../src/wiring/gpv2.js';
import { openEventStore } from '../src/orderbook/store/index.js';
import { startTestChain } from '../test/support/chain.js';
import { spawnService, type ServiceProcess } from '../test/support/process.js';
import { openSse, type SseClient } from '../test/support/sse.js';
import { orderEvents, synthesiseLog } from '../test/support/synthetic-log.js';
import { request } from 'undici';
import { runLoad, type Workload } from './load.js';
import type { BystanderRequest } from './bystander.js';
import { freePort, printTargets, round, type Figure, type Target } from './tools.js';

type Figures = Record<string, Figure>;

const LOG_EVENTS = 20_000;
const STALLED_STREAMS = 500;
const ATTACK_SECONDS = 5;
const BYSTANDER_P99_TARGET_MS = 50;
/**
 * A block every 100 ms during the WebSocket attack, on a network of its own (goerli, its own anvil), so that
 * what is measured is the notifications to every newHeads and logs subscription and not the order book's
 * own work per block of its network (its orders' balances), which no client causes.
 */
const BLOCK_MS = 100;

/** A distinct client address per attacking connection (documentation ranges and 10/8). */
const address = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function residentBytes(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (at most a minute) until GET /livez is answered within 20 ms three times in a row. */
async function settle(base: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (let quick = 0; quick < 3 && Date.now() < deadline; ) {
    await sleep(500);
    const started = performance.now();
    await (await request(`${base}/livez`)).body.arrayBuffer();
    quick = performance.now() - started < 20 ? quick + 1 : 0;
  }
}

/** The bystander worker: reset() starts a measurement, report() ends it with its latencies. */
class Bystander {
  private readonly worker: Worker;

  constructor(base: string, requests: BystanderRequest[]) {
    this.worker = new Worker(new URL('./bystander.js', import.meta.url), { workerData: { base, requests, intervalMs: 10 } });
  }

  reset(): void {
    this.worker.postMessage('reset');
  }

  report(): Promise<{ p50: number; p99: number; samples: number; failures: number }> {
    return new Promise((resolve) => {
      this.worker.once('message', ({ latencies, failures }: { latencies: number[]; failures: number }) => {
        latencies.sort((a, b) => a - b);
        resolve({ p50: percentile(latencies, 50), p99: percentile(latencies, 99), samples: latencies.length, failures });
      });
      this.worker.postMessage('report');
    });
  }

  async stop(): Promise<void> {
    this.worker.postMessage('stop');
    await new Promise((resolve) => this.worker.once('exit', resolve));
  }
}

interface Context {
  base: string;
  pid: number;
  tokens: { TKA: string; TKB: string };
  mine(): Promise<unknown>;
  figures: Figures;
  log(line: string): void;
}

/** An attack: starts, runs for about ATTACK_SECONDS while the bystander measures, and cleans up. */
type Attack = (ctx: Context) => Promise<void>;

const flood = (workload: (ctx: Context) => Workload, connections = 50): Attack => async (ctx) => {
  const result = await runLoad(workload(ctx), { connections, seconds: ATTACK_SECONDS });
  ctx.log(`  ${Math.round(result.rps)} req/s, p99 ${result.p99Ms.toFixed(1)} ms, ${result.errors} errors or refusals`);
};

const ATTACKS: Record<string, Attack> = {
  none: async () => {
    await sleep(ATTACK_SECONDS * 1000);
  },

  sse_stalled_catchups: async (ctx) => {
    const before = residentBytes(ctx.pid);
    const streams: SseClient[] = [];
    let refused = 0;
    try {
      for (let i = 0; i < STALLED_STREAMS; i++) {
        const stream = await openSse(`${ctx.base}/api/v1/events/stream?after=0`, { 'x-forwarded-for': address(i) });
        stream.pause();
        if (stream.status !== 200) refused++;
        streams.push(stream);
      }
      // Every catch-up has filled its client's socket and waits for it, holding its one buffer. The growth
      // is the highest resident memory seen meanwhile (sampled every 100 ms), not only the last sample,
      // which a collection may have just lowered.
      let after = residentBytes(ctx.pid);
      for (const ends = Date.now() + ATTACK_SECONDS * 1000; Date.now() < ends; ) {
        await sleep(100);
        after = Math.max(after, residentBytes(ctx.pid));
      }
      const growth = (after - before) / 1e6;
      ctx.figures['abuse.sse_stalled_catchups.rss_before'] = { value: round(before / 1e6, 1), unit: 'MB' };
      ctx.figures['abuse.sse_stalled_catchups.rss_growth'] = { value: round(growth, 1), unit: 'MB' };
      ctx.log(`  ${STALLED_STREAMS - refused} stalled catch-ups of ${LOG_EVENTS} events (${refused} refused): RSS ${(before / 1e6).toFixed(0)} -> at most ${(after / 1e6).toFixed(0)} MB`);
    } finally {
      for (const stream of streams) stream.close();
    }
  },

  ws_flood: async (ctx) => {
    const wsUrl = `${ctx.base.replace('http', 'ws')}/v1/jsonrpc/goerli/ws`;
    const open = (i: number) =>
      new Promise<WebSocket>((resolve, reject) => {
        const socket = new WebSocket(wsUrl, { headers: { 'x-forwarded-for': address(100_000 + i) } });
        socket.once('open', () => resolve(socket));
        socket.once('error', reject);
      });
    const sockets: WebSocket[] = [];
    let mining = true;
    try {
      for (let i = 0; i < 100; i++) {
        const socket = await open(i);
        sockets.push(socket);
        for (let s = 0; s < 32; s++) {
          const params = s % 2 === 0 ? ['newHeads'] : ['logs', {}];
          socket.send(JSON.stringify({ jsonrpc: '2.0', id: s, method: 'eth_subscribe', params }));
        }
      }
      await sleep(200);
      for (const socket of sockets) socket.pause();
      const flooders = await Promise.all(Array.from({ length: 20 }, (_, i) => open(200 + i)));
      sockets.push(...flooders);
      const id = 'x'.repeat(32 * 1024);
      const miner = (async () => {
        while (mining) {
          await ctx.mine();
          await sleep(BLOCK_MS);
        }
      })();
      for (const socket of flooders) socket.pause();
      const ends = Date.now() + ATTACK_SECONDS * 1000;
      let sent = 0;
      while (Date.now() < ends) {
        for (const socket of flooders) {
          if (socket.readyState !== WebSocket.OPEN) continue;
          socket.send(JSON.stringify({ jsonrpc: '2.0', id: id + sent++, method: 'eth_chainId', params: [] }));
        }
        await sleep(20);
      }
      mining = false;
      await miner;
      const open_ = sockets.filter((s) => s.readyState === WebSocket.OPEN).length;
      ctx.log(`  100 non-reading connections x 32 subscriptions, 20 flooding ${sent} requests; ${open_} of ${sockets.length} still open at the end`);
    } finally {
      mining = false;
      for (const socket of sockets) socket.terminate();
    }
  },

  fee_flood: flood((ctx) => ({ url: `${ctx.base}/api/v1/tokens/${ctx.tokens.TKA}/fee`, method: 'GET' })),

  quote_flood: flood((ctx) => ({
    url: `${ctx.base}/api/v1/quote`,
    method: 'POST',
    body: JSON.stringify({
      sellToken: ctx.tokens.TKA,
      buyToken: ctx.tokens.TKB,
      from: toBeHex(0x5000, 20),
      kind: 'sell',
      sellAmountBeforeFee: parseUnits('10', 18).toString(),
      validFor: 600,
    }),
  })),

  big_listings: flood(
    (ctx) => ({
      url: `${ctx.base}/api/v1/orders?includeFullyExecuted=true&includeInvalidated=true&includeInsufficientBalance=true`,
      method: 'GET',
    }),
    8,
  ),

  healthz_flood: flood((ctx) => ({ url: `${ctx.base}/healthz`, method: 'GET' })),
};

export async function benchAbuse(): Promise<Figures> {
  const log = (line: string) => console.error(line);
  const figures: Figures = {};
  const chain = await startTestChain({ chainId: 1 });
  const wsChain = await startTestChain({ chainId: 5 });
  const dataDir = mkdtempSync(join(tmpdir(), 'ethgate-bench-abuse-'));
  let service: ServiceProcess | undefined;
  let bystander: Bystander | undefined;
  try {
    const dev = await bootstrapDevChain(chain.rpc);
    const store = await openEventStore({ dataDir });
    await synthesiseLog(store, LOG_EVENTS);
    await store.close();
    const port = await freePort();
    service = await spawnService(
      {
        PORT: String(port),
        DATA_DIR: dataDir,
        NETWORKS: 'mainnet,goerli',
        ORDERBOOK: 'on',
        UPSTREAM_MAINNET: chain.anvil.httpUrl,
        UPSTREAM_GOERLI: wsChain.anvil.httpUrl,
        SETTLEMENT_CONTRACT: dev.settlement,
        TOKEN_PRICES: `${dev.tokens.TKA}=1,${dev.tokens.TKB}=0.5`,
        TRUST_PROXY: '1',
        LOG_LEVEL: 'warn',
      },
      { timeoutMs: 180_000, nodeArgs: process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? [] },
    );
    const base = `http://127.0.0.1:${port}`;
    const uid = (orderEvents(0)[0].data as { uid: string }).uid;
    const requests: BystanderRequest[] = [
      // eth_chainId is cached for good (a static answer): the gateway's cheapest relayed call.
      {
        path: '/',
        method: 'POST',
        headers: { host: 'mainnet.localhost', 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      },
      { path: `/api/v1/orders/${uid}`, method: 'GET' },
    ];
    for (const r of requests) {
      const res = await request(base + r.path, { method: r.method, headers: r.headers, body: r.body });
      if (res.statusCode !== 200) throw new Error(`the bystander's ${r.method} ${r.path} answered ${res.statusCode}: ${await res.body.text()}`);
      await res.body.arrayBuffer();
    }
    bystander = new Bystander(base, requests);
    await sleep(1_000); // the bystander's first requests warm its paths up
    const ctx: Context = {
      base,
      pid: service.child.pid!,
      tokens: dev.tokens as { TKA: string; TKB: string },
      mine: () => wsChain.send('evm_mine'),
      figures,
      log,
    };
    const chosen = process.env.BENCH_ABUSE_ATTACKS?.split(',') ?? Object.keys(ATTACKS);
    for (const [name, attack] of Object.entries(ATTACKS)) {
      if (name !== 'none' && !chosen.includes(name)) continue;
      log(`abuse: ${name}`);
      bystander.reset();
      await attack(ctx);
      const seen = await bystander.report();
      figures[`abuse.${name}.bystander_p50`] = { value: round(seen.p50, 2), unit: 'ms' };
      figures[`abuse.${name}.bystander_p99`] = { value: round(seen.p99, 2), unit: 'ms' };
      log(`  bystander: ${seen.samples} answers, p50 ${seen.p50.toFixed(2)} ms, p99 ${seen.p99.toFixed(2)} ms, ${seen.failures} failed`);
      if (service.child.exitCode !== null) throw new Error(`the service died during ${name}:\n${service.output.join('').slice(-4000)}`);
      // What the attack left behind (requests still being answered, closing sockets, collections) must be
      // over before the next one is measured: the service answers quickly again, three times in a row.
      await settle(base);
    }
    const baseline = figures['abuse.none.bystander_p99'].value;
    for (const name of Object.keys(ATTACKS)) {
      if (name === 'none' || !figures[`abuse.${name}.bystander_p99`]) continue;
      figures[`abuse.${name}.bystander_p99_ratio`] = { value: round(figures[`abuse.${name}.bystander_p99`].value / baseline, 2), unit: 'x no attack' };
    }
    const targets: Target[] = [
      ...Object.keys(ATTACKS).map((name) => ({ label: `bystander p99 during ${name}`, key: `abuse.${name}.bystander_p99`, atMost: BYSTANDER_P99_TARGET_MS })),
      { label: `RSS growth with ${STALLED_STREAMS} stalled catch-ups`, key: 'abuse.sse_stalled_catchups.rss_growth', atMost: 200 },
    ];
    printTargets('abuse', figures, targets);
    return figures;
  } catch (err) {
    if (service) log(service.output.join('').slice(-4000));
    throw err;
  } finally {
    await bystander?.stop();
    await service?.stop();
    await chain.stop();
    await wsChain.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
