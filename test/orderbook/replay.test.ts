/**
 * The auditor's replay (src/orderbook/replay.ts, what `npm run replay` runs): whatever the number of worker
 * threads the log is split over, it gives the digests of the live read models, reorganisation reverts
 * included.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/orderbook/store/sqlite.js';
import { SqliteReadModelStore } from '../../src/orderbook/read/models/sqlite.js';
import { MemoryReadModelStore } from '../../src/orderbook/read/models/memory.js';
import { ProjectionRunner } from '../../src/orderbook/read/runner.js';
import { digestReadModel, type Digest } from '../../src/orderbook/read/digest.js';
import { replay } from '../../src/orderbook/read/rebuild.js';
import { replayOrderbook } from '../../src/orderbook/read/replay.js';
import { digestsInWorker } from '../../src/orderbook/read/digest-cache.js';
import { checkOrderEvent, orderStreamId } from '../../src/orderbook/write/events.js';
import { appDataRegistered, appDataStreamId, quoteIssued, quoteStreamId } from '../../src/orderbook/write/book-events.js';
import { projections } from '../../src/orderbook/read/projections/index.js';
import { logger } from '../../src/shared/logger.js';
import { orderEvents, synthesiseLog, syntheticQuote } from '../support/synthetic-log.js';

describe('order book replay', function () {
  this.timeout(120_000);
  let dir: string;
  let live: Record<string, Digest>;
  let head: number;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ethgate-replay-'));
    const store = new SqliteEventStore(join(dir, 'events.sqlite'));
    await synthesiseLog(store, 3_000);
    // Revert every trade of the first 40 orders' streams, as the indexer does after a reorganisation.
    for (const event of await store.readAll(0, 200)) {
      if (event.type !== 'TradeRecorded') continue;
      const { uid, chain } = event.data as { uid: string; chain: object };
      const revert = checkOrderEvent({ type: 'ChainEventReverted', schemaVersion: 1, data: { uid, chain, reverted: 'TradeRecorded' } });
      await store.append(orderStreamId(uid), [revert], 'any');
    }
    // Today's API's events: app data, quotes, and a bulk cancellation of an order not cancelled yet.
    const at = '2026-11-23T00:00:00.000Z';
    await store.append(appDataStreamId('0x' + 'ab'.repeat(32)), [appDataRegistered({ hash: '0x' + 'ab'.repeat(32), fullAppData: '{}', registeredAt: at })], 0);
    const quote = syntheticQuote(at);
    for (let i = 0; i < 5; i++) await store.append(quoteStreamId(`replay-${i}`), [quoteIssued(quote)], 0);
    const open = (await store.readAll(200, 400)).find((e) => e.type === 'OrderCreated' && e.streamVersion === 1)!;
    const uid = (open.data as { uid: string }).uid;
    if ((await store.readStream(orderStreamId(uid))).some((e) => e.type === 'OrderCancelled')) throw new Error('pick an order not cancelled');
    const bulk = checkOrderEvent({ type: 'OrderCancelled', schemaVersion: 1, data: { uid, cancelledAt: at, signingScheme: 'eip712', signature: '0x' + 'ab'.repeat(64) + '1b', bulk: true } });
    await store.append(orderStreamId(uid), [bulk], 'any');
    head = await store.head();
    const readModels = new SqliteReadModelStore(store.db);
    const runner = new ProjectionRunner(store, readModels, projections, logger);
    await runner.start();
    await runner.waitFor(head);
    live = {};
    for (const p of projections) live[p.name] = await digestReadModel(readModels, p.name);
    await runner.stop();
    await store.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("gives the digests GET /api/v1/projections computes in its worker thread, from the live read models", async () => {
    const names = projections.map((p) => p.name);
    const computed = await digestsInWorker({ dataDir: dir })(names, {});
    assert.deepEqual(computed, live);
  });

  for (const workers of [1, 2, 3]) {
    it(`gives the live digests with ${workers} worker(s)`, async () => {
      const result = await replayOrderbook({ store: { dataDir: dir }, workers });
      assert.equal(result.events, head);
      assert.equal(result.position, head);
      assert.deepEqual(result.digests, live);
      assert.ok(live.trades.documents > 0 && live.orders.documents > 0);
    });
  }

  it('stops at a given position, as the single-threaded replay does', async () => {
    const to = Math.floor(head / 2);
    const parallel = await replayOrderbook({ store: { dataDir: dir }, workers: 2, to });
    const store = new SqliteEventStore(join(dir, 'events.sqlite'));
    try {
      const single = await replay(store, new MemoryReadModelStore(), projections, to);
      assert.equal(parallel.events, to);
      assert.deepEqual(parallel.digests, single.digests);
      assert.notDeepEqual(parallel.digests, live);
    } finally {
      await store.close();
    }
  });

  it('fails, rather than give a wrong digest, when one document depends on events of two streams', async () => {
    const other = mkdtempSync(join(tmpdir(), 'ethgate-replay-two-streams-'));
    try {
      const store = new SqliteEventStore(join(other, 'events.sqlite'));
      const trade = orderEvents(0).find((e) => e.type === 'TradeRecorded')!;
      // The same settlement log recorded as a trade of two orders: one trades document, two streams.
      for (const n of [0, 1]) {
        const [created] = orderEvents(n);
        const uid = (created.data as { uid: string }).uid;
        await store.append(orderStreamId(uid), [created, checkOrderEvent({ ...trade, data: { ...(trade.data as object), uid } })], 0);
      }
      await store.close();
      for (const workers of [1, 2]) {
        await assert.rejects(replayOrderbook({ store: { dataDir: other }, workers }), /trades: document .* depends on events of more than one stream/);
      }
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("gives the live digests through scanning connections (npm run replay's) while a writer keeps newer events in its WAL", async () => {
    const writer = new SqliteEventStore(join(dir, 'events.sqlite'));
    try {
      // Orders beyond those of the log so far, appended after `head` and left in the WAL: the writer stays open.
      await synthesiseLog(writer, 300, 1_000_000);
      assert.ok(statSync(join(dir, 'events.sqlite-wal')).size > 0, 'the newer events are in the WAL');
      const result = await replayOrderbook({ store: { dataDir: dir, scan: true }, workers: 2, to: head });
      assert.equal(result.events, head);
      assert.deepEqual(result.digests, live);
      // The writer goes on appending after the scanning connections' checkpoint.
      assert.equal((await writer.append(quoteStreamId('after-scan'), [quoteIssued(syntheticQuote('2026-11-25T00:00:00.000Z'))], 0)).position, (await writer.head()));
    } finally {
      await writer.close();
    }
  });
});
