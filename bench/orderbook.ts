/**
 * Order book figures (a measurement, not a test), in one run:
 * - intake: valid signed orders accepted per second through POST /api/v1/orders of a service child process
 *   (`node dist/src/wiring/main.js` on an external anvil with the GPv2 contracts), `concurrency` requests in
 *   flight, each order sent once by wrk (bench/load.ts sendOnce), on SQLite and (when a database URL is
 *   given) PostgreSQL. The orders are signed before the clock starts (native secp256k1, the same signature as ethers' signTypedData), spread
 *   over `owners` funded owners; `intakeOrders` are timed after a warm-up;
 * - GET /api/v1/solvable_orders p50/p99 (sequential GETs, timed by wrk) when the book holds exactly `openOrders` open
 *   orders, measured in a pause of the intake: plain and gzip, and the 304 answer to a client that has the
 *   current ETag;
 * - replay: events per second of `replayOrderbook()` (what `npm run replay` runs: in memory, one worker
 *   thread per core) over a synthetic log of `replayEvents` valid order events (creations, trades,
 *   cancellations) in a fresh SQLite event store, from its call until it returns the digests (the log
 *   read and folded, every document hashed, the hashes merged: what an auditor waits for);
 * - reference: signature recoveries per second of the native secp256k1 binding alone, on this machine now;
 * - quote: POST /api/v1/quote latency p50/p99 with `quoteClients` clients each asking one quote after the
 *   other (SQLite; every quote is a row of the quote table, no event);
 * - growth: one SQLite service filled to each of `growthLevels` open orders (10,000, 50,000, 100,000): at each,
 *   solvable_orders p50/p99 plain and gzip in a pause (the answer cached; timed by wrk), the first GET after one more order
 *   (the answer rebuilt: 40 changes, alternately plain and gzip; p50/p99, and the ratio to the next GET by the
 *   same client, which finds the answer cached), GET /api/v1/orders/{UID} p50/p99 of random orders (timed by wrk, beside the same
 *   GETs of a static node:http server answering a body of the order's size: this machine's floor), and the
 *   service's resident memory per open order (RSS at the level minus RSS before the first order, divided).
 * Run alone: `node dist/bench/orderbook.js [section ...]` (DATABASE_URL for PostgreSQL; BENCH_GROWTH_LEVELS=10000,50000
 * for fewer growth levels; BENCH_SERVICE_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' for a profile of the
 * service), or through `npm run bench`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MaxUint256, parseEther, parseUnits, toBeHex } from 'ethers';
import pg from 'pg';
import { Pool } from 'undici';
import { loadConfig } from '../src/wiring/config.js';
import { logger } from '../src/shared/logger.js';
import { SqliteEventStore } from '../src/orderbook/store/sqlite.js';
import { bootstrapDevChain, type DevChain } from '../src/wiring/gpv2.js';
import { replayOrderbook } from '../src/orderbook/read/replay.js';
import { gasFundedWallet, startTestChain, type TestChain } from '../test/support/chain.js';
import { signOrderNative } from '../test/support/orders.js';
import { synthesiseLog } from '../test/support/synthetic-log.js';
import { spawnService, type ServiceProcess } from '../test/support/process.js';
import { fundTrader } from '../test/support/solver.js';
import { measureSigning } from './signing.js';
import { runLoad, sendOnce } from './load.js';
import { cpuSeconds, freePort, percentile, printTargets, round, type Figure, type Target } from './tools.js';
import { startStaticHttp } from './static-http.js';

export interface OrderbookBenchOptions {
  /** PostgreSQL for the intake on PostgreSQL (default: DATABASE_URL from the configuration). */
  databaseUrl?: string;
  /** Open orders when solvable_orders is measured (default 10,000, posted first). */
  openOrders?: number;
  /** Orders timed for the intake figure (default 20,000): those posted after the warm-up, before and after solvable_orders is measured. */
  intakeOrders?: number;
  /** Orders posted before the clock starts (default 1,000; part of openOrders). */
  warmupOrders?: number;
  /** Requests in flight during the intake (default 200). */
  concurrency?: number;
  /** Funded owners the orders are spread over (default 100). */
  owners?: number;
  /** Seconds of sequential GETs of solvable_orders per variant, timed by wrk (default 2). */
  solvableSeconds?: number;
  /** Events of the synthetic log replayed (default 1,000,000). */
  replayEvents?: number;
  /** Progress lines on stderr (default true). */
  verbose?: boolean;
  /** What to measure (default all; postgres only with a database URL). */
  sections?: Section[];
  /** Concurrent clients of the quote latency figure (default 50). */
  quoteClients?: number;
  /** Quotes each client asks, one after the other (default 40). */
  quotesPerClient?: number;
  /** Options for the service's node, e.g. ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] for a profile of the intake. */
  serviceNodeArgs?: string[];
  /** Open orders at which the growth section measures (default 10,000, 50,000 and 100,000). */
  growthLevels?: number[];
}

export type Section = 'reference' | 'sqlite' | 'postgres' | 'replay' | 'quote' | 'growth';
const SECTIONS: Section[] = ['reference', 'sqlite', 'postgres', 'replay', 'quote', 'growth'];

type Figures = Record<string, Figure>;

// ---------------------------------------------------------------------------------------------------------
// The chain and the orders

interface Market {
  chain: TestChain;
  dev: DevChain;
  /** Serialised OrderCreation bodies, signed once and posted to each engine's fresh book. */
  bodies: string[];
}

async function prepareMarket(owners: number, orders: number): Promise<Market> {
  const chain = await startTestChain({ chainId: 1 });
  const dev = await bootstrapDevChain(chain.rpc);
  const keys: string[] = [];
  // Each owner holds far more TKA than all its orders need, approved to the vault relayer.
  for (let i = 0; i < owners; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, owners - i) }, async () => {
        const owner = await gasFundedWallet(chain.provider, chain, parseEther('10'));
        await fundTrader(dev.tokens.TKA, owner, parseUnits('1000000000', 18), dev.vaultRelayer, MaxUint256);
        return owner.privateKey;
      }),
    );
    keys.push(...batch);
  }
  const validTo = Math.floor(Date.now() / 1000) + 24 * 3600;
  const bodies = Array.from({ length: orders }, (_, i) =>
    JSON.stringify(
      signOrderNative(keys[i % keys.length], dev.domainSeparator, {
        sellToken: dev.tokens.TKA,
        buyToken: dev.tokens.TKB,
        sellAmount: parseUnits('1', 18) + BigInt(i),
        buyAmount: parseUnits('0.5', 18),
        validTo,
      }).body,
    ),
  );
  return { chain, dev, bodies };
}

// ---------------------------------------------------------------------------------------------------------
// Intake and solvable orders, against one service process

/** The environment of a service child running the order book on the market's chain, its data in `dataDir`. */
async function bookServiceEnv(market: Market, dataDir: string, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  return {
    PORT: String(await freePort()),
    DATA_DIR: dataDir,
    NETWORKS: 'mainnet',
    ORDERBOOK: 'on',
    UPSTREAM_MAINNET: market.chain.anvil.httpUrl,
    SETTLEMENT_CONTRACT: market.dev.settlement,
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/**
 * POSTs every body once with `concurrency` in flight and returns the seconds it took; throws unless every
 * one is accepted. The client is wrk (load.ts): an undici client took 60-90 µs of CPU per order, a fifth of
 * the two cores the service needs.
 */
async function postAll(base: string, bodies: string[], concurrency: number): Promise<number> {
  if (bodies.length === 0) return 0;
  const result = await sendOnce(`${base}/api/v1/orders`, bodies, { connections: concurrency, status: 201, seconds: 120 });
  if (result.answered !== bodies.length || result.unexpected > 0) {
    throw new Error(`POST /api/v1/orders: ${result.answered} of ${bodies.length} answered, ${result.unexpected} not with 201; the first: ${result.firstUnexpected}`);
  }
  return result.seconds;
}

/** The client's CPU seconds: this process and the wrk runs it has waited for. */
const clientCpuSeconds = () => cpuSeconds(process.pid, { endedChildren: true });

/**
 * Reads a body to its end, counting its bytes without keeping them: a client that copied each 12-120 MB
 * answer into one buffer would measure its own garbage collection in the server's latency.
 */
async function drain(body: AsyncIterable<Uint8Array>): Promise<number> {
  let bytes = 0;
  for await (const chunk of body) bytes += chunk.length;
  return bytes;
}

/**
 * p50 and p99 of sequential GETs over `seconds`, after a second of the same untimed, timed by wrk (one
 * connection): a client in C that leaves no garbage. An undici client measured its own collections: the
 * 12 MB of chunks each GET of solvable_orders brings it start a full collection every ~30 GETs ("external
 * memory pressure" in --trace-gc), and those pauses were the p99 (10-20 ms against a 4 ms median). For
 * one order by UID, the client's scavenges (it holds the market's signed orders) added 0.5-1.5 ms to the
 * p99. `paths`: each GET one of them, drawn uniformly (the url's path otherwise).
 */
async function timeSequentialGets(url: string, seconds: number, options: { headers?: Record<string, string>; paths?: string[] } = {}): Promise<{ p50Ms: number; p99Ms: number }> {
  const workload = { url, method: 'GET' as const, ...options };
  await runLoad(workload, { connections: 1, seconds: 1 });
  const result = await runLoad(workload, { connections: 1, seconds });
  if (result.errors > 0) throw new Error(`GET ${url}: ${result.errors} errors`);
  return result;
}

/**
 * The same GETs of a node:http server that answers a body of `bytes` bytes and does nothing else
 * (static-http.ts), in a child process as the service is: the floor this machine puts under any GET now.
 */
async function timeStaticGets(bytes: number, seconds: number): Promise<{ p50Ms: number; p99Ms: number }> {
  const server = await startStaticHttp(bytes);
  try {
    return await timeSequentialGets(server.url, seconds);
  } finally {
    await server.stop();
  }
}

async function benchEngine(
  engine: 'sqlite' | 'postgres',
  market: Market,
  options: Required<Omit<OrderbookBenchOptions, 'databaseUrl'>> & { databaseUrl?: string },
  log: (line: string) => void,
): Promise<Figures> {
  const dataDir = mkdtempSync(join(tmpdir(), `ethgate-bench-ob-${engine}-`));
  const schema = `bench_ob_${process.pid}_${Date.now().toString(36)}`;
  const env = await bookServiceEnv(market, dataDir, engine === 'postgres' ? { DATABASE_URL: options.databaseUrl!, DATABASE_SCHEMA: schema } : {});
  let service: ServiceProcess | undefined;
  const base = `http://127.0.0.1:${env.PORT}`;
  const pool = new Pool(base, { connections: options.concurrency, pipelining: 1 });
  try {
    service = await spawnService(env, { nodeArgs: options.serviceNodeArgs });
    const { warmupOrders, openOrders, intakeOrders } = options;
    await postAll(base, market.bodies.slice(0, warmupOrders), options.concurrency);
    // The intake is timed in two parts: up to openOrders, then the rest once solvable_orders is measured.
    const cpuBefore = { service: cpuSeconds(service.child.pid!), client: clientCpuSeconds() };
    let seconds = await postAll(base, market.bodies.slice(warmupOrders, openOrders), options.concurrency);
    const cpuBetween = { service: cpuSeconds(service.child.pid!) - cpuBefore.service, client: clientCpuSeconds() - cpuBefore.client };

    const first = await pool.request({ path: '/api/v1/solvable_orders', method: 'GET' });
    // Orders counted in the text rather than parsed into 10,000 objects.
    const text = await first.body.text();
    const solvable = { length: text.split('"uid":').length - 1, bytes: Buffer.byteLength(text) };
    if (solvable.length !== options.openOrders) throw new Error(`solvable_orders has ${solvable.length} orders, expected ${options.openOrders}`);
    const etag = String(first.headers.etag);
    const gzipBytes = await drain((await pool.request({ path: '/api/v1/solvable_orders', method: 'GET', headers: { 'accept-encoding': 'gzip' } })).body);
    const revalidated = await pool.request({ path: '/api/v1/solvable_orders', method: 'GET', headers: { 'if-none-match': etag } });
    await drain(revalidated.body);
    if (revalidated.statusCode !== 304) throw new Error(`If-None-Match with the current ETag answered ${revalidated.statusCode}`);
    const url = `${base}/api/v1/solvable_orders`;
    const plain = await timeSequentialGets(url, options.solvableSeconds);
    const gzip = await timeSequentialGets(url, options.solvableSeconds, { headers: { 'accept-encoding': 'gzip' } });
    const notModified = await timeSequentialGets(url, options.solvableSeconds, { headers: { 'if-none-match': etag } });
    log(
      `${engine}: solvable_orders (${solvable.length} orders, ${(solvable.bytes / 1e6).toFixed(1)} MB, gzip ${(gzipBytes / 1e6).toFixed(1)} MB) ` +
        `p50 ${plain.p50Ms.toFixed(1)} ms, p99 ${plain.p99Ms.toFixed(1)} ms; ` +
        `gzip p50 ${gzip.p50Ms.toFixed(1)} ms; 304 p50 ${notModified.p50Ms.toFixed(2)} ms`,
    );
    const cpuAgain = { service: cpuSeconds(service.child.pid!), client: clientCpuSeconds() };
    seconds += await postAll(base, market.bodies.slice(openOrders, warmupOrders + intakeOrders), options.concurrency);
    const serviceCpu = cpuBetween.service + cpuSeconds(service.child.pid!) - cpuAgain.service;
    const clientSeconds = cpuBetween.client + clientCpuSeconds() - cpuAgain.client;
    const rate = Math.round(intakeOrders / seconds);
    log(
      `${engine}: ${intakeOrders} orders in ${seconds.toFixed(2)} s: ${rate} orders/s ` +
        `(service CPU ${((serviceCpu / intakeOrders) * 1e6).toFixed(0)} µs/order, ` +
        `the client (wrk and this process) ${((clientSeconds / intakeOrders) * 1e6).toFixed(0)} µs/order)`,
    );
    const ms = (value: number) => ({ value: round(value, 2), unit: 'ms' });
    return {
      [`orderbook.intake.${engine}`]: { value: rate, unit: 'orders/s' },
      [`orderbook.solvable_orders_${engine}.p50`]: ms(plain.p50Ms),
      [`orderbook.solvable_orders_${engine}.p99`]: ms(plain.p99Ms),
      [`orderbook.solvable_orders_${engine}_gzip.p50`]: ms(gzip.p50Ms),
      [`orderbook.solvable_orders_${engine}_gzip.p99`]: ms(gzip.p99Ms),
      [`orderbook.solvable_orders_${engine}_304.p50`]: ms(notModified.p50Ms),
    };
  } catch (err) {
    if (service) log(service.output.join('').slice(-4000));
    throw err;
  } finally {
    await pool.destroy().catch(() => undefined);
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    if (engine === 'postgres') {
      const client = new pg.Client({ connectionString: options.databaseUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  }
}


// ---------------------------------------------------------------------------------------------------------
// Growth: solvable_orders, one order's GET and memory as the book grows

/** Resident memory of a process, in bytes (VmRSS). */
function residentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** Milliseconds of each of `count` sequential GETs of `path`, body fully received, sorted. */
async function timeGets(pool: Pool, path: string, count: number, headers: Record<string, string> = {}): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = process.hrtime.bigint();
    const res = await pool.request({ path, method: 'GET', headers });
    await drain(res.body);
    if (res.statusCode !== 200) throw new Error(`GET answered ${res.statusCode}`);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return times.sort((a, b) => a - b);
}

async function benchGrowth(o: Required<Omit<OrderbookBenchOptions, 'databaseUrl'>>, log: (line: string) => void): Promise<Figures> {
  const levels = [...o.growthLevels].sort((a, b) => a - b);
  // Changes per level: each one more order, then the first GET (alternately plain and gzip).
  const changes = 40;
  const total = levels.at(-1)! + changes * levels.length;
  log(`growth: preparing ${o.owners} owners and ${total} signed orders`);
  const market = await prepareMarket(o.owners, total);
  const dataDir = mkdtempSync(join(tmpdir(), 'ethgate-bench-growth-'));
  const env = await bookServiceEnv(market, dataDir);
  const base = `http://127.0.0.1:${env.PORT}`;
  const pool = new Pool(base, { connections: o.concurrency, pipelining: 1 });
  let service: ServiceProcess | undefined;
  const figures: Figures = {};
  const ms = (value: number) => ({ value: round(value, 2), unit: 'ms' });
  try {
    service = await spawnService(env, { nodeArgs: o.serviceNodeArgs });
    const pid = service.child.pid!;
    const empty = residentBytes(pid);
    let extra = 0; // orders posted as changes, beyond the levels
    let posted = 0;
    const post = async (count: number) => {
      const bodies = market.bodies.slice(posted, posted + count);
      await postAll(base, bodies, o.concurrency);
      posted += count;
    };
    for (const level of levels) {
      await post(level + extra - posted);
      await timeGets(pool, '/api/v1/solvable_orders', 1); // builds the answer
      // Timed by wrk, as in the engine sections: at 100,000 orders each plain GET brings a client 120 MB.
      const url = `${base}/api/v1/solvable_orders`;
      const plain = await timeSequentialGets(url, o.solvableSeconds);
      const gzip = await timeSequentialGets(url, o.solvableSeconds, { headers: { 'accept-encoding': 'gzip' } });
      // After a change: one more order, then the first GET (plain, then gzip), which rebuilds the answer, and
      // a second GET by the same client, which finds it cached: the reference the first is a ratio to (wrk's
      // figures above come from another client, which takes a 100 MB body faster than this process does).
      const rebuiltPlain: number[] = [];
      const rebuiltGzip: number[] = [];
      const cachedPlain: number[] = [];
      const cachedGzip: number[] = [];
      for (let i = 0; i < changes; i++) {
        await post(1);
        extra++;
        const headers: Record<string, string> = i % 2 === 0 ? {} : { 'accept-encoding': 'gzip' };
        (i % 2 === 0 ? rebuiltPlain : rebuiltGzip).push(...(await timeGets(pool, '/api/v1/solvable_orders', 1, headers)));
        (i % 2 === 0 ? cachedPlain : cachedGzip).push(...(await timeGets(pool, '/api/v1/solvable_orders', 1, headers)));
      }
      for (const times of [rebuiltPlain, rebuiltGzip, cachedPlain, cachedGzip]) times.sort((a, b) => a - b);
      // One order by UID: the body's UID is in the signed order (56 bytes: digest, owner, validTo).
      // The UIDs are picked out of the answer's text rather than parsed into 10k-100k objects: the client's
      // scavenges of those objects landed in the GETs timed next (6-12 ms pauses, seen with --trace-gc).
      const answer = await (await pool.request({ path: '/api/v1/solvable_orders', method: 'GET' })).body.text();
      const orderPaths = Array.from(answer.matchAll(/"uid":"(0x[0-9a-f]{112})"/g), (match) => `/api/v1/orders/${match[1]}`);
      const orderBytes = await drain((await pool.request({ path: orderPaths[0], method: 'GET' })).body);
      // wrk's untimed second also warms the path up: at the first level these are the process's first GETs by
      // UID, and V8 compiles their path on background threads meanwhile, taking the two cores' time (perf
      // record -a: ~70 ms of compiler threads in a 220 ms window).
      const one = await timeSequentialGets(base, o.solvableSeconds, { paths: orderPaths });
      const floor = await timeStaticGets(orderBytes, o.solvableSeconds);
      const rss = residentBytes(pid);
      const k = `${level / 1000}k`;
      Object.assign(figures, {
        [`orderbook.growth.${k}.solvable_orders.p50`]: ms(plain.p50Ms),
        [`orderbook.growth.${k}.solvable_orders.p99`]: ms(plain.p99Ms),
        [`orderbook.growth.${k}.solvable_orders_gzip.p50`]: ms(gzip.p50Ms),
        [`orderbook.growth.${k}.solvable_orders_gzip.p99`]: ms(gzip.p99Ms),
        [`orderbook.growth.${k}.solvable_orders_after_change.p50`]: ms(percentile(rebuiltPlain, 50)),
        [`orderbook.growth.${k}.solvable_orders_after_change.p99`]: ms(percentile(rebuiltPlain, 99)),
        [`orderbook.growth.${k}.solvable_orders_gzip_after_change.p50`]: ms(percentile(rebuiltGzip, 50)),
        [`orderbook.growth.${k}.solvable_orders_gzip_after_change.p99`]: ms(percentile(rebuiltGzip, 99)),
        [`orderbook.growth.${k}.solvable_orders_cached_same_client.p50`]: ms(percentile(cachedPlain, 50)),
        [`orderbook.growth.${k}.solvable_orders_gzip_cached_same_client.p50`]: ms(percentile(cachedGzip, 50)),
        // The first GET after a change over the next GET by the same client (the answer cached), p50 to p50.
        [`orderbook.growth.${k}.ratio.solvable_orders_after_change_vs_cached`]: { value: round(percentile(rebuiltPlain, 50) / percentile(cachedPlain, 50), 2), unit: 'x' },
        [`orderbook.growth.${k}.ratio.solvable_orders_gzip_after_change_vs_cached`]: { value: round(percentile(rebuiltGzip, 50) / percentile(cachedGzip, 50), 2), unit: 'x' },
        [`orderbook.growth.${k}.order.p50`]: ms(one.p50Ms),
        [`orderbook.growth.${k}.order.p99`]: ms(one.p99Ms),
        [`orderbook.growth.${k}.static_get.p50`]: ms(floor.p50Ms),
        [`orderbook.growth.${k}.static_get.p99`]: ms(floor.p99Ms),
        [`orderbook.growth.${k}.rss_per_open_order`]: { value: Math.round((rss - empty) / orderPaths.length), unit: 'bytes' },
      });
      log(
        `growth ${orderPaths.length} open orders: solvable_orders p50 ${plain.p50Ms.toFixed(1)} / p99 ${plain.p99Ms.toFixed(1)} ms, ` +
          `gzip p50 ${gzip.p50Ms.toFixed(1)} / p99 ${gzip.p99Ms.toFixed(1)} ms; after a change (${changes / 2} each) p50 ` +
          `${percentile(rebuiltPlain, 50).toFixed(1)} / p99 ${percentile(rebuiltPlain, 99).toFixed(1)} ms ` +
          `(${(percentile(rebuiltPlain, 50) / percentile(cachedPlain, 50)).toFixed(2)}x the next GET, cached: p50 ${percentile(cachedPlain, 50).toFixed(1)} ms), ` +
          `gzip p50 ${percentile(rebuiltGzip, 50).toFixed(1)} / p99 ${percentile(rebuiltGzip, 99).toFixed(1)} ms ` +
          `(${(percentile(rebuiltGzip, 50) / percentile(cachedGzip, 50)).toFixed(2)}x the next GET, cached: p50 ${percentile(cachedGzip, 50).toFixed(1)} ms); order p50 ${one.p50Ms.toFixed(2)} / p99 ${one.p99Ms.toFixed(2)} ms ` +
          `(a static node:http GET of its ${orderBytes} bytes: p50 ${floor.p50Ms.toFixed(2)} / p99 ${floor.p99Ms.toFixed(2)} ms); ` +
          `RSS ${((rss - empty) / 1e6).toFixed(0)} MB over empty, ${Math.round((rss - empty) / orderPaths.length)} B per open order`,
      );
    }
    return figures;
  } catch (err) {
    if (service) log(service.output.join('').slice(-4000));
    throw err;
  } finally {
    await pool.destroy().catch(() => undefined);
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await market.chain.stop();
  }
}

// ---------------------------------------------------------------------------------------------------------
// Replay

async function benchReplay(events: number, log: (line: string) => void): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), 'ethgate-bench-replay-'));
  const store = new SqliteEventStore(join(dir, 'events.sqlite'));
  try {
    const writeStarted = Date.now();
    const written = await synthesiseLog(store, events);
    log(`replay: wrote ${written} events in ${((Date.now() - writeStarted) / 1000).toFixed(1)} s`);
    // What `npm run replay` does: one worker per core, into memory, its connections opened for a scan.
    const result = await replayOrderbook({ store: { dataDir: dir, scan: true } });
    if (result.events !== written) throw new Error(`replayed ${result.events} of ${written} events`);
    const rate = Math.round(result.events / result.seconds);
    log(`replay: ${result.events} events in ${result.seconds.toFixed(2)} s: ${rate} events/s`);
    return { 'orderbook.replay.events_per_s': { value: rate, unit: 'events/s' } };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Quotes (today's CoW API)

async function benchQuotes(clients: number, perClient: number, log: (line: string) => void): Promise<Figures> {
  const chain = await startTestChain({ chainId: 1 });
  const dataDir = mkdtempSync(join(tmpdir(), 'ethgate-bench-ob-quote-'));
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
      TOKEN_PRICES: `${dev.tokens.TKA}=1,${dev.tokens.TKB}=0.5`,
      LOG_LEVEL: 'warn',
    };
    service = await spawnService(env);
    pool = new Pool(`http://127.0.0.1:${env.PORT}`, { connections: clients, pipelining: 1 });
    const body = (i: number) =>
      JSON.stringify({
        sellToken: dev.tokens.TKA,
        buyToken: dev.tokens.TKB,
        from: toBeHex(0x5000 + i, 20),
        kind: 'sell',
        sellAmountBeforeFee: parseUnits(String(10 + i), 18).toString(),
        validFor: 600,
      });
    const ask = async (i: number): Promise<number> => {
      const started = process.hrtime.bigint();
      const res = await pool!.request({ path: '/api/v1/quote', method: 'POST', headers: { 'content-type': 'application/json' }, body: body(i) });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`POST /api/v1/quote answered ${res.statusCode}`);
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    for (let i = 0; i < clients; i++) await ask(i); // warm-up
    const times: number[] = [];
    const started = Date.now();
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        for (let q = 0; q < perClient; q++) times.push(await ask(c * perClient + q));
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    times.sort((a, b) => a - b);
    log(
      `quote: ${times.length} quotes by ${clients} clients in ${seconds.toFixed(2)} s (${Math.round(times.length / seconds)}/s): ` +
        `p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms`,
    );
    return {
      'orderbook.quote_sqlite_50_clients.p50': { value: round(percentile(times, 50), 2), unit: 'ms' },
      'orderbook.quote_sqlite_50_clients.p99': { value: round(percentile(times, 99), 2), unit: 'ms' },
      'orderbook.quote_sqlite.quotes_per_s': { value: Math.round(times.length / seconds), unit: 'quotes/s' },
    };
  } finally {
    await pool?.destroy().catch(() => undefined);
    await service?.stop();
    await chain.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------

export async function benchOrderbook(options: OrderbookBenchOptions = {}): Promise<Figures> {
  const o = {
    databaseUrl: options.databaseUrl ?? loadConfig().databaseUrl,
    openOrders: options.openOrders ?? 10_000,
    intakeOrders: options.intakeOrders ?? 20_000,
    warmupOrders: options.warmupOrders ?? 1_000,
    concurrency: options.concurrency ?? 200,
    owners: options.owners ?? 100,
    solvableSeconds: options.solvableSeconds ?? 2,
    replayEvents: options.replayEvents ?? 1_000_000,
    verbose: options.verbose ?? true,
    sections: options.sections ?? SECTIONS,
    quoteClients: options.quoteClients ?? 50,
    quotesPerClient: options.quotesPerClient ?? 40,
    serviceNodeArgs: options.serviceNodeArgs ?? (process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    growthLevels: options.growthLevels ?? (process.env.BENCH_GROWTH_LEVELS ?? '10000,50000,100000').split(',').map(Number),
  };
  const wanted = (section: Section) => o.sections.includes(section);
  const log = (line: string) => {
    if (o.verbose) console.error(`[orderbook bench] ${line}`);
  };
  // The dev chain bootstrap logs each deployment; the figures are what this prints.
  const level = logger.level;
  logger.level = 'warn';
  try {
    const figures = await measure(o, wanted, log);
    addRatios(figures);
    printTargets('issue 3', figures, TARGETS);
    printTargets('issue 10', figures, ISSUE_10_TARGETS);
    printTargets('issue 29', figures, ISSUE_29_TARGETS);
    printReference(figures);
    return figures;
  } finally {
    logger.level = level;
  }
}

async function measure(
  o: Required<Omit<OrderbookBenchOptions, 'databaseUrl'>> & { databaseUrl?: string },
  wanted: (section: Section) => boolean,
  log: (line: string) => void,
): Promise<Figures> {
  const figures: Figures = {};
  if (wanted('reference')) {
    const signing = await measureSigning(500);
    figures['orderbook.reference.native_ecdsa_recoveries_per_s'] = signing.native_ecdsa_recoveries_per_s;
    figures['orderbook.reference.order_validations_per_s'] = signing.order_validations_per_s;
    log(`native recoveries ${signing.native_ecdsa_recoveries_per_s.value}/s, order validations ${signing.order_validations_per_s.value}/s (one core)`);
  }

  if (wanted('sqlite') || wanted('postgres')) {
    if (o.openOrders > o.warmupOrders + o.intakeOrders || o.openOrders < o.warmupOrders) {
      throw new Error('openOrders must lie between warmupOrders and warmupOrders + intakeOrders');
    }
    const total = o.warmupOrders + o.intakeOrders;
    log(`preparing ${o.owners} owners and ${total} signed orders`);
    const market = await prepareMarket(o.owners, total);
    try {
      if (wanted('sqlite')) Object.assign(figures, await benchEngine('sqlite', market, o, log));
      if (wanted('postgres') && o.databaseUrl) Object.assign(figures, await benchEngine('postgres', market, o, log));
      else if (wanted('postgres')) log('no DATABASE_URL: PostgreSQL intake skipped');
    } finally {
      await market.chain.stop();
    }
  }

  if (wanted('growth')) Object.assign(figures, await benchGrowth(o, log));
  if (wanted('replay')) Object.assign(figures, await benchReplay(o.replayEvents, log));
  if (wanted('quote')) Object.assign(figures, await benchQuotes(o.quoteClients, o.quotesPerClient, log));
  return figures;
}

// The issue's targets were set on a machine whose native binding recovers about 20,000 signatures/s per core.
const ISSUE_REFERENCE_RECOVERIES_PER_S = 20_000;

/**
 * Figures relative to the reference measured in the same run, so that runs on machines (or moments) of
 * different speed compare: the absolute targets below assume the issue's machine.
 */
function addRatios(figures: Figures): void {
  const reference = figures['orderbook.reference.native_ecdsa_recoveries_per_s']?.value;
  if (!reference) return;
  figures['orderbook.ratio.reference_vs_issue_machine'] = { value: round(reference / ISSUE_REFERENCE_RECOVERIES_PER_S, 3), unit: 'x' };
  for (const key of ['orderbook.intake.sqlite', 'orderbook.intake.postgres', 'orderbook.replay.events_per_s']) {
    const figure = figures[key];
    if (figure) figures[`orderbook.ratio.${key.slice('orderbook.'.length).replace(/\./g, '_')}_vs_native_recoveries`] = { value: round(figure.value / reference, 3), unit: 'x' };
  }
}

const TARGETS: Target[] = [
  { label: 'intake on SQLite', key: 'orderbook.intake.sqlite', atLeast: 3000 },
  { label: 'intake on PostgreSQL', key: 'orderbook.intake.postgres', atLeast: 1500 },
  { label: 'solvable_orders p50 on SQLite (10,000 open orders)', key: 'orderbook.solvable_orders_sqlite.p50', atMost: 25 },
  { label: 'solvable_orders p50 on PostgreSQL (10,000 open orders)', key: 'orderbook.solvable_orders_postgres.p50', atMost: 25 },
  { label: 'replay', key: 'orderbook.replay.events_per_s', atLeast: 100_000 },
];

/** Issue 10's targets (2026-11-24), ratios to the same run's native recoveries where they are relative. */
const ISSUE_10_TARGETS: Target[] = [
  { label: 'intake on SQLite', key: 'orderbook.intake.sqlite', atLeast: 6000 },
  { label: 'intake on SQLite vs native recoveries', key: 'orderbook.ratio.intake_sqlite_vs_native_recoveries', atLeast: 0.3 },
  { label: 'intake on PostgreSQL', key: 'orderbook.intake.postgres', atLeast: 4000 },
  { label: 'intake on PostgreSQL vs native recoveries', key: 'orderbook.ratio.intake_postgres_vs_native_recoveries', atLeast: 0.2 },
  { label: 'replay of 1M events', key: 'orderbook.replay.events_per_s', atLeast: 300_000 },
  { label: 'solvable_orders p99, 10,000 open orders (SQLite)', key: 'orderbook.solvable_orders_sqlite.p99', atMost: 15 },
  { label: 'GET /orders/{UID} p99, 10,000 open orders', key: 'orderbook.growth.10k.order.p99', atMost: 2 },
  { label: 'solvable_orders gzip p50, 100,000 open orders', key: 'orderbook.growth.100k.solvable_orders_gzip.p50', atMost: 10 },
  { label: 'solvable_orders gzip p99, 100,000 open orders', key: 'orderbook.growth.100k.solvable_orders_gzip.p99', atMost: 50 },
  { label: 'solvable_orders plain p99, 100,000 open orders', key: 'orderbook.growth.100k.solvable_orders.p99', atMost: 250 },
];

/**
 * Issue 29's solvable_orders target (2026-11-28): the first GET after a change within the same order as a
 * cached one. The gzip answer is what solvers fetch and what the cached targets above bound (a plain answer
 * at 100,000 orders is ~120 MB on the wire, cached or not); the plain figure is printed beside it with its
 * ratio to the cached plain GET.
 */
const ISSUE_29_TARGETS: Target[] = [
  { label: 'solvable_orders gzip after a change p50, 100,000 open orders', key: 'orderbook.growth.100k.solvable_orders_gzip_after_change.p50', atMost: 20 },
];

function printReference(figures: Figures): void {
  const scale = figures['orderbook.ratio.reference_vs_issue_machine'];
  if (scale) {
    console.error(`  reference: native recoveries ${figures['orderbook.reference.native_ecdsa_recoveries_per_s'].value}/s here, ${scale.value} x the issue's ~20,000/s`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const sections = process.argv.slice(2) as Section[];
  const unknown = sections.filter((name) => !SECTIONS.includes(name));
  if (unknown.length > 0) throw new Error(`unknown sections ${unknown.join(', ')}; known: ${SECTIONS.join(', ')}`);
  const figures = await benchOrderbook(sections.length > 0 ? { sections } : {});
  console.log(JSON.stringify(figures, null, 2));
  process.exit(0);
}
