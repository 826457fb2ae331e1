/**
 * How soon things happen live (`npm run bench -- live`). The functional tests assert only that they happen
 * (in order, once, on the right client) with a deadline that ends a hang; how soon is measured here, each
 * figure beside a reference measured in the same run on the same machine, and their ratio:
 * - `head_ws`: a block mined on anvil until its newHeads notification through the gateway with a WebSocket
 *   upstream, against the node's own newHeads to a client of it; `head_http`: the same with an http upstream
 *   polled every HEAD_POLL_MS, against that interval (a poll finds a block half an interval late on average);
 * - `stream_stalled_neighbour`: an event's latency on the event stream to a client that reads while another
 *   has stopped reading (until that one is cut off at the bound), against the same client with no neighbour;
 * - `explorer_row`: an order appended to the log until its row shows in its market in Chromium, against the
 *   same event on the event stream to a Node client;
 * - `instances` (with DATABASE_URL): an event appended through one instance until the other instance's
 *   stream has it (PostgreSQL NOTIFY), against the appending instance's own stream.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../test/support/service.js';
import { AnvilProcess } from '../test/support/upstreams.js';
import { WsClient } from '../test/support/ws.js';
import { openSse, type SseClient } from '../test/support/sse.js';
import { orderEvents } from '../test/support/synthetic-log.js';
import { launchBrowser } from '../test/support/browser.js';
import { startTestChain } from '../test/support/chain.js';
import { databaseUrl, dropSchema } from '../test/support/postgres.js';
import { until } from '../test/support/wait.js';
import { bootstrapDevChain } from '../src/wiring/gpv2.js';
import { orderStreamId } from '../src/orderbook/write/events.js';
import type { EventStore } from '../src/orderbook/store/types.js';
import { percentile, round, type Figure } from './tools.js';

type Figures = Record<string, Figure>;

const BLOCKS = 40;
const ROUNDS = 50;
const HEAD_POLL_MS = 100;
/** The stream's bound for the stalled-neighbour section, as in its functional test. */
const STREAM_BOUND = 64 * 1024;

/** p50 and p99 of `measured` and of `reference` (ms), and the ratios of the measured to the reference. */
function compared(name: string, measured: number[], reference: number[]): Figures {
  const [m, r] = [measured, reference].map((xs) => [...xs].sort((a, b) => a - b));
  const ms = (value: number) => ({ value: round(value, 2), unit: 'ms' });
  const figures: Figures = {
    [`live.${name}.p50`]: ms(percentile(m, 50)),
    [`live.${name}.p99`]: ms(percentile(m, 99)),
    [`live.${name}.reference_p50`]: ms(percentile(r, 50)),
    [`live.${name}.reference_p99`]: ms(percentile(r, 99)),
    [`live.${name}.ratio_p50`]: { value: round(percentile(m, 50) / percentile(r, 50), 2), unit: 'x' },
    [`live.${name}.ratio_p99`]: { value: round(percentile(m, 99) / percentile(r, 99), 2), unit: 'x' },
  };
  console.error(`live.${name}: p50 ${percentile(m, 50).toFixed(1)} / p99 ${percentile(m, 99).toFixed(1)} ms over ${m.length}; ` +
    `reference p50 ${percentile(r, 50).toFixed(1)} / p99 ${percentile(r, 99).toFixed(1)} ms over ${r.length}`);
  return figures;
}

/** newHeads arrival times by block number on a WebSocket already subscribed (`performance.now()`). */
async function headArrivals(url: string): Promise<{ client: WsClient; at: Map<number, number> }> {
  const client = await WsClient.connect(url);
  const at = new Map<number, number>();
  client.socket.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString());
    if (frame.method === 'eth_subscription' && frame.params.result?.number) at.set(Number(frame.params.result.number), performance.now());
  });
  await client.call('eth_subscribe', ['newHeads']);
  return { client, at };
}

async function benchHeads(): Promise<Figures> {
  const anvil = await AnvilProcess.start();
  const services: TestService[] = [];
  const clients: WsClient[] = [];
  try {
    const wsUrl = anvil.url.replace('http', 'ws');
    for (const upstream of [wsUrl, anvil.url]) services.push(await startTestService({ UPSTREAM_MAINNET: upstream, HEAD_POLL_INTERVAL_MS: String(HEAD_POLL_MS) }));
    const [direct, viaWs, viaHttp] = await Promise.all([
      headArrivals(wsUrl),
      ...services.map((s) => headArrivals(`${s.url.replace('http', 'ws')}/v1/jsonrpc/mainnet/ws`)),
    ]);
    clients.push(direct.client, viaWs.client, viaHttp.client);
    const mined = new Map<number, number>();
    for (let i = 0; i < BLOCKS; i++) {
      const before = Number(await anvil.rpc('eth_blockNumber'));
      await anvil.rpc('evm_mine');
      mined.set(before + 1, performance.now());
      await sleep(150);
    }
    const last = Math.max(...mined.keys());
    await until(() => [direct, viaWs, viaHttp].every((c) => c.at.has(last)), 'the last block on every client', 30_000);
    const latencies = (arrivals: Map<number, number>) => [...mined].map(([n, at]) => arrivals.get(n)! - at);
    const polled = latencies(viaHttp.at).sort((a, b) => a - b);
    console.error(`live.head_http: p50 ${percentile(polled, 50).toFixed(1)} / p99 ${percentile(polled, 99).toFixed(1)} ms over ${polled.length}, polling every ${HEAD_POLL_MS} ms`);
    return {
      ...compared('head_ws', latencies(viaWs.at), latencies(direct.at)),
      'live.head_http.p50': { value: round(percentile(polled, 50), 2), unit: 'ms' },
      'live.head_http.p99': { value: round(percentile(polled, 99), 2), unit: 'ms' },
      'live.head_http.p50_per_poll_interval': { value: round(percentile(polled, 50) / HEAD_POLL_MS, 2), unit: 'x' },
    };
  } finally {
    for (const c of clients) await c.close();
    for (const s of services) await s.stop();
    await anvil.stop();
  }
}

/** Appends synthetic order n (its creation only) and gives its position and when the store acknowledged it. */
async function appendOrder(store: EventStore, n: number): Promise<{ position: number; at: number }> {
  const [created] = orderEvents(n);
  const { position } = await store.append(orderStreamId((created.data as { uid: string }).uid), [created], 'no_stream');
  return { position, at: performance.now() };
}

/** Latencies on `reader` of the events appended in `batches` batches of 20 orders, or until `stop()`. */
async function streamLatencies(service: TestService, reader: SseClient, first: number, batches: number, stop = () => false): Promise<{ latencies: number[]; batches: number }> {
  const store = service.orderbook!.events;
  const acked = new Map<number, number>();
  let n = first;
  let done = 0;
  while (done < batches && !stop()) {
    const appended = await Promise.all(Array.from({ length: 20 }, () => appendOrder(store, n++)));
    for (const { position, at } of appended) acked.set(position, at);
    done++;
  }
  const last = Math.max(...acked.keys());
  await until(() => Number(reader.events.at(-1)?.id) >= last, 'the reader to have every event', 60_000);
  const latencies = reader.events.filter((e) => acked.has(Number(e.id))).map((e) => e.at - acked.get(Number(e.id))!);
  return { latencies, batches: done };
}

async function benchStalledNeighbour(): Promise<Figures> {
  const service = await startTestService({ ORDERBOOK: 'on', MIN_VALID_TO_SECONDS: '1', STREAM_MAX_BUFFERED_BYTES: String(STREAM_BOUND) });
  const clients: SseClient[] = [];
  try {
    const book = service.orderbook!;
    const stream = `${service.url}/api/v1/events/stream`;
    const open = async () => {
      const client = await openSse(stream);
      clients.push(client);
      return client;
    };

    // A reader beside a client that stops reading, until that one is cut off; then a reader alone, as long.
    const stalled = await open();
    const beside = await open();
    await until(() => book.feed.readers >= 2, 'both clients live');
    stalled.pause();
    const withNeighbour = await streamLatencies(service, beside, 7_000_000, 1_500, () => book.feed.readers < 2);
    if (book.feed.readers >= 2) throw new Error('the stalled client was never cut off');
    for (const c of clients.splice(0)) c.close();
    await until(() => book.feed.readers === 0, 'the clients gone');
    const alone = await open();
    const withoutNeighbour = await streamLatencies(service, alone, 7_100_000, withNeighbour.batches);
    return compared('stream_stalled_neighbour', withNeighbour.latencies, withoutNeighbour.latencies);
  } finally {
    for (const c of clients) c.close();
    await service.stop();
  }
}

/** A service of its own: the markets page shows 200 rows at most, so the orders of the stream section would hide these. */
async function benchExplorerRow(): Promise<Figures> {
  const service = await startTestService({ ORDERBOOK: 'on', MIN_VALID_TO_SECONDS: '1' });
  let alone: SseClient | undefined;
  let browser: Browser | undefined;
  try {
    const book = service.orderbook!;
    alone = await openSse(`${service.url}/api/v1/events/stream`);
    const reader = alone;
    // An order's row in its market (synthetic orders whose number is a multiple of 3 trade 0x…a1 for 0x…b2).
    const created = (n: number) => orderEvents(n)[0].data as { uid: string; sellToken: string; buyToken: string };
    const seed = created(7_200_000);
    await appendOrder(book.events, 7_200_000);
    await book.runner.waitFor(await book.events.head());
    browser = await launchBrowser();
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${service.url}/#/markets/${[seed.sellToken, seed.buyToken].sort().join('/')}`);
    await page.locator(`tr[data-uid="${seed.uid}"]`).waitFor({ timeout: 60_000 });
    const rowMs: number[] = [];
    const streamMs: number[] = [];
    for (let i = 1; i <= ROUNDS; i++) {
      const n = 7_200_000 + 3 * i;
      const row = page.locator(`tr[data-uid="${created(n).uid}"]`);
      const { position, at } = await appendOrder(book.events, n);
      await row.waitFor({ timeout: 60_000 });
      rowMs.push(performance.now() - at);
      await until(() => Number(reader.events.at(-1)?.id) >= position, 'the order on the stream', 60_000);
      streamMs.push(reader.events.find((e) => Number(e.id) === position)!.at - at);
      await sleep(50);
    }
    return compared('explorer_row', rowMs, streamMs);
  } finally {
    await browser?.close();
    alone?.close();
    await service.stop();
  }
}

async function benchInstances(): Promise<Figures> {
  if (!databaseUrl) {
    console.error('live: no DATABASE_URL, so no instances figures');
    return {};
  }
  const chain = await startTestChain({ chainId: 1 });
  const schema = `bench_live_${randomBytes(5).toString('hex')}`;
  const services: TestService[] = [];
  const clients: SseClient[] = [];
  try {
    const dev = await bootstrapDevChain(chain.rpc);
    const env = {
      ORDERBOOK: 'on',
      DATABASE_URL: databaseUrl,
      DATABASE_SCHEMA: schema,
      UPSTREAM_MAINNET: chain.anvil.httpUrl,
      SETTLEMENT_CONTRACT: dev.settlement,
      MIN_VALID_TO_SECONDS: '1',
    };
    for (let i = 0; i < 2; i++) services.push(await startTestService(env));
    const [a, b] = services;
    for (const s of services) clients.push(await openSse(`${s.url}/api/v1/events/stream`));
    const [own, other] = clients;
    await until(() => a.orderbook!.feed.readers >= 1 && b.orderbook!.feed.readers >= 1, 'both streams live');
    const ownMs: number[] = [];
    const otherMs: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const { position, at } = await appendOrder(a.orderbook!.events, 7_300_000 + i);
      await until(() => [own, other].every((c) => Number(c.events.at(-1)?.id) >= position), 'the event on both instances', 60_000);
      ownMs.push(own.events.find((e) => Number(e.id) === position)!.at - at);
      otherMs.push(other.events.find((e) => Number(e.id) === position)!.at - at);
      await sleep(50);
    }
    return compared('instances', otherMs, ownMs);
  } finally {
    for (const c of clients) c.close();
    for (const s of services) await s.stop();
    await chain.stop();
    await dropSchema(schema);
  }
}

export async function benchLive(): Promise<Figures> {
  return { ...(await benchHeads()), ...(await benchStalledNeighbour()), ...(await benchExplorerRow()), ...(await benchInstances()) };
}
