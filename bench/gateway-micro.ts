/**
 * The gateway's relay path in process, without client sockets (as eRPC measures its forward path with
 * `go test -bench`): requests are built in memory as node:http request/response objects and handed to the
 * service's own request handler (routing, API key and request id, validation, rate limits, cache policy,
 * relay to a local anvil over undici, metrics), and to the bare relay's handler as the reference. For each
 * channel it prints the CPU time and the bytes allocated per request, measured in this process: the
 * upstream (anvil) runs in its own. `post` runs as configured by default (a turn's upstream calls go out as
 * one batch), `post_unbatched` with each upstream call in an exchange of its own (UPSTREAM_BATCH_CALLS=1),
 * as the bare relay sends them. `npm run bench -- gateway-micro`.
 *
 * Allocation is what the heap grew by plus what every garbage collection of the run freed (v8.GCProfiler);
 * promotion is what the young-generation collections moved to the old generation, which should be little
 * more than the bare relay's: what a request leaves behind for longer than two of them is costly (see
 * src/shared/in-flight.ts). Each workload runs in slices alternating with the bare relay,
 * and its added cost is measured against the bare relay's slices of the same run.
 *
 * BENCH_MICRO_SECONDS (4) and BENCH_MICRO_CONCURRENCY (50) change the runs; BENCH_MICRO_ONLY=<name> runs one
 * workload and the bare relay (for --cpu-prof of just that path). BENCH_MICRO_ALLOC_PROFILE=<dir> writes, for
 * each workload, a sampling profile of every allocation of one more run, garbage included (`--heap-prof`
 * keeps only what survives), as <dir>/<workload>.heapprofile, which Chrome DevTools opens.
 */
import { IncomingMessage, ServerResponse, type IncomingHttpHeaders } from 'node:http';
import { Duplex } from 'node:stream';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { Session } from 'node:inspector/promises';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadConfig } from '../src/wiring/config.js';
import { startService, type Service } from '../src/wiring/service.js';
import { createMainServer } from '../src/http/server.js';
import { gatewayFront } from '../src/gateway/http-front.js';
import { startTestChain } from '../test/support/chain.js';
import { promotedBytes } from '../test/support/gc.js';
import { bareRelayHandler } from './bare-relay.js';
import { round, type Figure } from './tools.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface MemoryRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: IncomingHttpHeaders;
  body?: Buffer;
}

/** A socket that keeps what the response writes and never reads: enough for node:http's objects. */
class MemorySocket extends Duplex {
  readonly remoteAddress = '127.0.0.1';
  readonly written: (Buffer | string)[] = [];

  constructor() {
    // Strings as they come, as net.Socket writes them (without a Buffer of their own).
    super({ decodeStrings: false });
  }

  override _read(): void {}
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.written.push(chunk);
    done();
  }

  text(): string {
    return this.written.map((chunk) => chunk.toString()).join('');
  }
}

/** Serves one in-memory request with `handler`; resolves the status and the raw response once finished. */
function serveInMemory(handler: Handler, request: MemoryRequest): Promise<{ status: number; raw(): string }> {
  const socket = new MemorySocket();
  const req = new IncomingMessage(socket as never);
  req.method = request.method;
  req.url = request.url;
  req.headers = request.headers;
  req.httpVersion = '1.1';
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  const res = new ServerResponse(req);
  res.assignSocket(socket as never);
  return new Promise((resolve, reject) => {
    res.once('finish', () => resolve({ status: res.statusCode, raw: () => socket.text() }));
    res.once('error', reject);
    handler(req, res);
    if (request.body) req.push(request.body);
    // What the HTTP parser sets once a body is whole; without it the request counts as aborted when it
    // ends, and takes the socket down with it.
    req.complete = true;
    req.push(null);
  });
}

interface Workload {
  name: string;
  handler: Handler;
  /** The i-th request of the run. */
  request(i: number): MemoryRequest;
}

/** Totals of one or more timed runs of a workload. */
interface MicroResult {
  requests: number;
  /** CPU time of this process, µs. */
  cpuUs: number;
  /** Bytes allocated. */
  bytes: number;
  /** Bytes moved to the old generation by young-generation collections: what outlived two of them. */
  promoted: number;
}

const NOTHING: MicroResult = { requests: 0, cpuUs: 0, bytes: 0, promoted: 0 };

function plus(a: MicroResult, b: MicroResult): MicroResult {
  return { requests: a.requests + b.requests, cpuUs: a.cpuUs + b.cpuUs, bytes: a.bytes + b.bytes, promoted: a.promoted + b.promoted };
}

const perRequest = (r: MicroResult) => ({ cpuUs: r.cpuUs / r.requests, bytes: r.bytes / r.requests, promoted: r.promoted / r.requests });

/** Keeps `concurrency` requests in flight for `seconds`; CPU, allocation and promotion of this process. */
async function run(workload: Workload, seconds: number, concurrency: number): Promise<MicroResult> {
  const first = await serveInMemory(workload.handler, workload.request(0));
  if (first.status !== 200 || !first.raw().includes('"result"')) throw new Error(`${workload.name}: ${first.raw().slice(0, 300)}`);
  const deadline = performance.now() + seconds * 1000;
  let issued = 0;
  let failed = 0;
  const profiler = new GCProfiler();
  const heapBefore = getHeapStatistics().used_heap_size;
  profiler.start();
  const cpuBefore = process.cpuUsage();
  const lane = async () => {
    while (performance.now() < deadline) {
      const { status } = await serveInMemory(workload.handler, workload.request(++issued));
      if (status !== 200) failed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const cpu = process.cpuUsage(cpuBefore);
  const heapAfter = getHeapStatistics().used_heap_size;
  const gcs = profiler.stop()?.statistics ?? [];
  if (failed > 0) throw new Error(`${workload.name}: ${failed} requests failed`);
  const freed = gcs.reduce((sum, gc) => sum + gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize, 0);
  return { requests: issued, cpuUs: cpu.user + cpu.system, bytes: heapAfter - heapBefore + freed, promoted: promotedBytes(gcs) };
}

/**
 * A workload and the bare relay in alternating slices of SLICE_SECONDS, `seconds` each in all: this machine's
 * speed drifts by more than the difference measured, and slices side by side see the same drift.
 */
const SLICE_SECONDS = 0.5;

async function interleaved(workload: Workload, bare: Workload, seconds: number, concurrency: number): Promise<{ own: MicroResult; bare: MicroResult }> {
  let own = NOTHING;
  let reference = NOTHING;
  for (let i = 0; i < Math.max(1, Math.round(seconds / SLICE_SECONDS)); i++) {
    reference = plus(reference, await run(bare, SLICE_SECONDS, concurrency));
    own = plus(own, await run(workload, SLICE_SECONDS, concurrency));
  }
  return { own, bare: reference };
}

/** Samples allocations (one per 1 KiB on average) until stopped, keeping those the GC has since freed. */
async function startAllocationProfile(): Promise<{ stop(file: string): Promise<void> }> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  return {
    async stop(file) {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

const rpc = (method: string, params: unknown[] = [], id = 1) => ({ jsonrpc: '2.0', id, method, params });
const jsonHeaders = (host: string): IncomingHttpHeaders => ({ host, 'content-type': 'application/json' });

export async function benchGatewayMicro(): Promise<Record<string, Figure>> {
  const seconds = Number(process.env.BENCH_MICRO_SECONDS ?? 4);
  const concurrency = Number(process.env.BENCH_MICRO_CONCURRENCY ?? 50);
  const only = process.env.BENCH_MICRO_ONLY;
  const allocDir = process.env.BENCH_MICRO_ALLOC_PROFILE;
  const chain = await startTestChain({ chainId: 1 });
  let service: Service | undefined;
  let unbatched: Service | undefined;
  try {
    await chain.send('anvil_mine', ['0x400']);
    const upstream = chain.anvil.httpUrl;
    // Every feature on, logs at info; no coalescing, so that each uncached request costs an upstream call
    // as it does through the bare relay.
    const env = { PORT: '0', HOST: '127.0.0.1', UPSTREAM_MAINNET: upstream, NETWORKS: 'mainnet', ORDERBOOK: 'off', COALESCE_READS: 'false', LOG_LEVEL: 'info' };
    const config = loadConfig({ ...env, DATA_DIR: `/tmp/ethgate-micro-${process.pid}` });
    service = await startService(config);
    const viaGateway = inMemoryHandler(service);
    // The same with each upstream call in an exchange of its own, as the bare relay sends them.
    unbatched = await startService(loadConfig({ ...env, UPSTREAM_BATCH_CALLS: '1', DATA_DIR: `/tmp/ethgate-micro-unbatched-${process.pid}` }));
    const viaUnbatched = inMemoryHandler(unbatched);
    const bare = bareRelayHandler(upstream);

    const single = Buffer.from(JSON.stringify(rpc('eth_blockNumber')));
    const batch = Buffer.from(JSON.stringify(Array.from({ length: 10 }, (_, i) => rpc('eth_blockNumber', [], i + 1))));
    // 100 old blocks, far below the head: final, so cached after the first read of each.
    const oldBlocks = Array.from({ length: 100 }, (_, i) => Buffer.from(JSON.stringify(rpc('eth_getBlockByNumber', [`0x${(i + 1).toString(16)}`, false]))));
    const network = jsonHeaders('mainnet.localhost');
    const workloads: Workload[] = [
      { name: 'bare_relay', handler: bare, request: () => ({ method: 'POST', url: '/', headers: jsonHeaders('127.0.0.1'), body: single }) },
      { name: 'post', handler: viaGateway, request: () => ({ method: 'POST', url: '/', headers: network, body: single }) },
      { name: 'post_unbatched', handler: viaUnbatched, request: () => ({ method: 'POST', url: '/', headers: network, body: single }) },
      { name: 'rest_get', handler: viaGateway, request: () => ({ method: 'GET', url: '/v1/jsonrpc/mainnet/eth_blockNumber', headers: { host: '127.0.0.1' } }) },
      { name: 'batch10', handler: viaGateway, request: () => ({ method: 'POST', url: '/', headers: network, body: batch }) },
      { name: 'cache_hit', handler: viaGateway, request: (i) => ({ method: 'POST', url: '/', headers: network, body: oldBlocks[i % oldBlocks.length] }) },
    ];
    // Fill the cache with the old blocks before the cache-hit run.
    for (const body of oldBlocks) await serveInMemory(viaGateway, { method: 'POST', url: '/', headers: network, body });

    const figures: Record<string, Figure> = {};
    const bareWorkload = workloads.find((w) => w.name === 'bare_relay')!;
    const record = (name: string, result: MicroResult) => {
      const each = perRequest(result);
      figures[`gateway_micro.${name}.cpu_per_request`] = { value: round(each.cpuUs, 2), unit: 'µs' };
      figures[`gateway_micro.${name}.bytes_per_request`] = { value: round(each.bytes), unit: 'B' };
      figures[`gateway_micro.${name}.promoted_bytes_per_request`] = { value: round(each.promoted), unit: 'B' };
      console.error(`  ${name}: ${round(each.cpuUs, 2)} µs, ${round(each.bytes)} B allocated, ${round(each.promoted)} B promoted per request (${result.requests} requests)`);
    };
    console.error(`gateway-micro: ${seconds} s per workload in slices of ${SLICE_SECONDS} s alternating with the bare relay, ${concurrency} in flight`);
    await run(bareWorkload, Math.min(1, seconds), concurrency); // warm-up
    let bareTotal = NOTHING;
    /** CPU per request of each workload and of the bare relay's slices beside it. */
    const cpu = new Map<string, { own: number; bare: number }>();
    for (const workload of workloads) {
      if (workload === bareWorkload || (only && workload.name !== only)) continue;
      await run(workload, Math.min(1, seconds), concurrency); // warm-up
      if (allocDir) {
        const profiling = await startAllocationProfile();
        await run(workload, seconds, concurrency);
        await profiling.stop(`${allocDir}/${workload.name}.heapprofile`);
      }
      const { own, bare } = await interleaved(workload, bareWorkload, seconds, concurrency);
      bareTotal = plus(bareTotal, bare);
      record(workload.name, own);
      cpu.set(workload.name, { own: perRequest(own).cpuUs, bare: perRequest(bare).cpuUs });
    }
    record('bare_relay', bareTotal);
    const post = cpu.get('post');
    if (post) figures['gateway_micro.post.added_cpu_per_request'] = { value: round(post.own - post.bare, 2), unit: 'µs' };
    const alone = cpu.get('post_unbatched');
    if (alone) figures['gateway_micro.post_unbatched.added_cpu_per_request'] = { value: round(alone.own - alone.bare, 2), unit: 'µs' };
    const hit = cpu.get('cache_hit');
    if (hit) figures['gateway_micro.ratio.cache_hit_vs_bare_relay_cpu'] = { value: round(hit.own / hit.bare, 3), unit: 'x' };
    return figures;
  } finally {
    await service?.stop();
    await unbatched?.stop();
    await chain.stop();
  }
}

/** The service's main HTTP handler, to be called with in-memory requests. */
function inMemoryHandler(service: Service): Handler {
  const gateway = service.gateway;
  const server = createMainServer({
    gateway: gatewayFront({ gateway: () => gateway, ws: () => undefined }),
    started: () => true,
    health: async () => ({ ready: true }),
  }, { access: service.access, server: loadConfig({}).server });
  return (req, res) => void server.emit('request', req, res);
}
