/**
 * The JetStream fan-out (NATS_URL): every event of the log reaches a JetStream consumer once, in position
 * order, on <stream>.<event type> with its position as Nats-Msg-Id; also when the service is killed with
 * kill -9 in the middle of a burst of appends and started again (it resumes after the stream's last message).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { NatsConnection } from 'nats';
import { PostgresEventStore } from '../../../src/orderbook/store/postgres.js';
import { bootstrapDevChain, type DevChain } from '../../../src/wiring/gpv2.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { startOrderbookService, type OrderbookHarness } from '../../support/orderbook.js';
import { serviceEnv, spawnService, type ServiceProcess } from '../../support/process.js';
import { databaseUrl, dropSchema } from '../../support/postgres.js';
import { synthesiseLog } from '../../support/synthetic-log.js';
import { consumeAll, natsOrSkip, natsUrl, streamCreated, testStreamName } from '../../support/nats.js';
import { get } from '../../support/orderbook.js';
import { until } from '../../support/wait.js';

const positions = (n: number, from = 1) => Array.from({ length: n }, (_, i) => from + i);

describe('order book: NATS JetStream fan-out', function () {
  this.timeout(180_000);
  let nc: NatsConnection;
  const streams: string[] = [];

  before(async function () {
    nc = await natsOrSkip(this);
  });
  after(async () => {
    if (!nc) return;
    const jsm = await nc.jetstreamManager();
    for (const s of streams) await jsm.streams.delete(s).catch(() => undefined);
    await nc.close();
  });

  it('publishes every event once, in order, on a subject per type with the position as message id', async () => {
    const stream = testStreamName();
    streams.push(stream);
    let h: OrderbookHarness | undefined;
    try {
      h = await startOrderbookService({ NATS_URL: natsUrl, NATS_STREAM: stream });
      const written = await synthesiseLog(h.book.events, 500);
      await streamCreated(nc, stream);
      const received = await consumeAll(nc, stream, written);
      assert.deepEqual(received.map((r) => r.position), positions(written));
      assert.ok(received.every((r) => r.msgId === String(r.position) && r.subject === `${stream}.${r.type}`));
      assert.deepEqual(new Set(received.map((r) => r.type)), new Set(['OrderCreated', 'TradeRecorded', 'OrderCancelled']));
    } finally {
      await h?.stop();
    }
  });

  it('an unreachable NATS server keeps nobody from using the order book', async () => {
    let h: OrderbookHarness | undefined;
    try {
      h = await startOrderbookService({ NATS_URL: 'nats://127.0.0.1:1', NATS_STREAM: testStreamName() });
      await synthesiseLog(h.book.events, 10);
      const res = await get(h.api, '/events');
      assert.equal(res.status, 200);
      assert.equal(res.json.length, 10);
    } finally {
      await h?.stop();
    }
  });

  describe('across a kill -9 mid-burst (PostgreSQL, the service as a child process)', () => {
    let chain: TestChain;
    let dev: DevChain;
    let schema: string;
    let store: PostgresEventStore;
    const children: ServiceProcess[] = [];

    before(async function () {
      if (!databaseUrl) return this.skip();
      chain = await startTestChain({ chainId: 1 });
      dev = await bootstrapDevChain(chain.rpc);
      schema = `nats_${randomBytes(5).toString('hex')}`;
      store = await PostgresEventStore.open({ connectionString: databaseUrl, schema });
    });
    after(async () => {
      for (const c of children) await c.kill9();
      for (const c of children) rmSync(c.env.DATA_DIR, { recursive: true, force: true });
      await store?.close();
      await chain?.stop();
      await dropSchema(schema);
    });

    it('a consumer still receives every event exactly once', async () => {
      const stream = testStreamName();
      streams.push(stream);
      const env = await serviceEnv({
        DATABASE_URL: databaseUrl!,
        DATABASE_SCHEMA: schema,
        UPSTREAM_MAINNET: chain.anvil.httpUrl,
        SETTLEMENT_CONTRACT: dev.settlement,
        NATS_URL: natsUrl,
        NATS_STREAM: stream,
      });
      const first = await spawnService(env);
      children.push(first);
      const jsm = await nc.jetstreamManager();
      const inStream = async () => (await jsm.streams.info(stream).catch(() => undefined))?.state.messages ?? 0;

      // A burst of appends by another writer (as a second instance would), in chunks, going on throughout:
      // the service is killed while it publishes, and the burst goes on while it is down and restarts.
      let written = 0;
      const burst = (async () => {
        for (let chunk = 0; chunk < 40; chunk++) {
          written += await synthesiseLog(store, 100, chunk * 100);
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      await until(async () => (await inStream()) >= 300, 'the first events in JetStream', 10_000);
      await first.kill9();
      const publishedBeforeRestart = await inStream();
      assert.ok(written < 4000, 'killed mid-burst');
      assert.ok(publishedBeforeRestart > 0);
      const second = await spawnService(env);
      children.push(second);
      await burst;
      const head = await store.head();
      assert.equal(head, written);
      const received = await consumeAll(nc, stream, head, 60_000);
      assert.equal(received.length, head, `every event once (${received.length} messages for ${head} events)`);
      assert.deepEqual(received.map((r) => r.position), positions(head));
      await second.stop();
    });
  });
});
