/**
 * The fixture log of test/fixtures/log-2026-11/: an order book event log in the SQLite format of
 * 2026-11-23 (before the read side kept derived views), with what the read models of that day answered
 * for it. test/orderbook/read/log-fixture.test.ts reads it with today's code: the log must stay readable,
 * and replaying it must answer the same. The files were written once, by the code of that day:
 *   node dist/test/support/log-fixture.js test/fixtures/log-2026-11
 * Running it again with today's code would overwrite the old answers with today's: do not, unless the
 * format of the log itself changes on purpose.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EventStore } from '../../src/orderbook/store/types.js';
import { checkOrderEvent, orderStreamId } from '../../src/orderbook/write/events.js';
import { appDataRegistered, appDataStreamId, quoteIssued, quoteStreamId } from '../../src/orderbook/write/book-events.js';
import { synthesiseLog, syntheticQuote } from './synthetic-log.js';

/** Unix seconds at which the fixture's answers were taken (every order's validTo is later). */
export const FIXTURE_NOW = 1_800_000_000;

/**
 * Events of every type the order book appends: 60 orders (creations, trades, cancellations), trades of
 * some reverted and one recorded again after its revert (a reorganisation back), an on-chain invalidation,
 * a presignature given and revoked, a bulk cancellation, app data and quotes.
 */
export async function writeFixtureEvents(store: EventStore): Promise<void> {
  await synthesiseLog(store, 100);
  const at = '2026-11-23T00:00:00.000Z';
  const events = await store.readAll(0, 100);
  const trades = events.filter((e) => e.type === 'TradeRecorded').slice(0, 4);
  for (const [i, trade] of trades.entries()) {
    const { uid, chain } = trade.data as { uid: string; chain: object };
    const revert = checkOrderEvent({ type: 'ChainEventReverted', schemaVersion: 1, data: { uid, chain, reverted: 'TradeRecorded' } });
    await store.append(orderStreamId(uid), [revert], 'any');
    // The first trade comes back: the chain reorganised back to the block that held it.
    if (i === 0) await store.append(orderStreamId(uid), [checkOrderEvent({ type: 'TradeRecorded', schemaVersion: 1, data: trade.data })], 'any');
  }
  const created = events.filter((e) => e.type === 'OrderCreated').map((e) => (e.data as { uid: string }).uid);
  const cancelled = new Set(events.filter((e) => e.type === 'OrderCancelled').map((e) => (e.data as { uid: string }).uid));
  const untouched = created.filter((uid) => !cancelled.has(uid)).slice(-3);
  const chain = (n: number) => ({
    blockNumber: 1000 + n,
    blockHash: '0x' + (0xb000 + n).toString(16).padStart(64, '0'),
    transactionHash: '0x' + (0xc000 + n).toString(16).padStart(64, '0'),
    logIndex: n,
  });
  await store.append(orderStreamId(untouched[0]), [checkOrderEvent({ type: 'OrderInvalidated', schemaVersion: 1, data: { uid: untouched[0], chain: chain(1) } })], 'any');
  await store.append(orderStreamId(untouched[1]), [
    checkOrderEvent({ type: 'OrderPresigned', schemaVersion: 1, data: { uid: untouched[1], chain: chain(2) } }),
    checkOrderEvent({ type: 'PresignatureRevoked', schemaVersion: 1, data: { uid: untouched[1], chain: chain(3) } }),
  ], 'any');
  const bulk = checkOrderEvent({ type: 'OrderCancelled', schemaVersion: 1, data: { uid: untouched[2], cancelledAt: at, signingScheme: 'eip712', signature: '0x' + 'ab'.repeat(64) + '1b', bulk: true } });
  await store.append(orderStreamId(untouched[2]), [bulk], 'any');
  await store.append(appDataStreamId('0x' + 'ab'.repeat(32)), [appDataRegistered({ hash: '0x' + 'ab'.repeat(32), fullAppData: '{}', registeredAt: at })], 0);
  const quote = syntheticQuote(at);
  for (let i = 0; i < 2; i++) await store.append(quoteStreamId(`fixture-${i}`), [quoteIssued(quote)], 0);
}

async function writeFixture(dir: string): Promise<void> {
  const { SqliteEventStore } = await import('../../src/orderbook/store/sqlite.js');
  const { SqliteReadModelStore } = await import('../../src/orderbook/read/models/sqlite.js');
  const { ProjectionRunner } = await import('../../src/orderbook/read/runner.js');
  const { projections } = await import('../../src/orderbook/read/projections/index.js');
  const { digestReadModel } = await import('../../src/orderbook/read/digest.js');
  const { presentOrder } = await import('../../src/orderbook/api/present-order.js');
  const { stateOf } = await import('../../src/orderbook/read/projections/orders.js');
  const { logger } = await import('../../src/shared/logger.js');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const work = join(dir, 'work');
  mkdirSync(work);
  const store = new SqliteEventStore(join(work, 'events.sqlite'));
  await writeFixtureEvents(store);
  const readModels = new SqliteReadModelStore(store.db);
  const runner = new ProjectionRunner(store, readModels, projections, logger);
  await runner.start();
  await runner.waitFor(await store.head());
  const orders: Record<string, unknown> = {};
  for (const row of await readModels.find<any>('orders', { orderBy: [{ column: 'id' }] })) {
    const order = presentOrder(stateOf(row.doc), FIXTURE_NOW, '0x9008d19f58aabd9ed0d60971565aa8510560ab41');
    if (order) orders[row.key] = order;
  }
  const trades = (await readModels.find<any>('trades', { orderBy: [{ column: 'id' }] })).map((row) => row.doc);
  const digests: Record<string, unknown> = {};
  for (const p of projections) digests[p.name] = await digestReadModel(readModels, p.name);
  writeFileSync(join(dir, 'answers.json'), JSON.stringify({ now: FIXTURE_NOW, orders, trades, digests }, null, 1) + '\n');
  await runner.stop();
  await store.close();
  // The log in the store's own format (SQLite), alone.
  const { copyFileSync } = await import('node:fs');
  copyFileSync(join(work, 'events.sqlite'), join(dir, 'events.sqlite'));
  rmSync(work, { recursive: true, force: true });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await writeFixture(process.argv[2] ?? 'test/fixtures/log-2026-11');
}
