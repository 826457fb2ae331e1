/**
 * A log written before the read side kept derived views (test/fixtures/log-2026-11, made by that day's code:
 * test/support/log-fixture.ts) is read by today's code: its read models, of an older version, are rebuilt
 * from the log, every order reads as that day's code answered, the trades are the same documents, and the
 * auditor's replay gives the digests of the rebuilt read models. An indexer that ran before it recorded its
 * chain facts takes them from such a log.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../../../src/orderbook/store/sqlite.js';
import { SqliteReadModelStore } from '../../../src/orderbook/read/models/sqlite.js';
import { ProjectionRunner } from '../../../src/orderbook/read/runner.js';
import { projections } from '../../../src/orderbook/read/projections/index.js';
import { stateOf, type OrderDoc } from '../../../src/orderbook/read/projections/orders.js';
import { digestReadModel, type Digest } from '../../../src/orderbook/read/digest.js';
import { replayOrderbook } from '../../../src/orderbook/read/replay.js';
import { presentOrder } from '../../../src/orderbook/api/present-order.js';
import { logger } from '../../../src/shared/logger.js';
import { repoPath } from '../../../src/shared/paths.js';
import { standingFactsInLog } from '../../../src/orderbook/chain/indexer.js';

interface Answers {
  now: number;
  orders: Record<string, unknown>;
  trades: unknown[];
  digests: Record<string, Digest>;
}

const SETTLEMENT = '0x9008d19f58aabd9ed0d60971565aa8510560ab41';

describe('a log of 2026-11 read by today\'s code', function () {
  this.timeout(60_000);
  let dir: string;
  let answers: Answers;
  let store: SqliteEventStore;
  let readModels: SqliteReadModelStore;
  let runner: ProjectionRunner;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ethgate-fixture-'));
    copyFileSync(repoPath('test', 'fixtures', 'log-2026-11', 'events.sqlite'), join(dir, 'events.sqlite'));
    answers = JSON.parse(readFileSync(repoPath('test', 'fixtures', 'log-2026-11', 'answers.json'), 'utf8')) as Answers;
    store = new SqliteEventStore(join(dir, 'events.sqlite'));
    readModels = new SqliteReadModelStore(store.db);
    runner = new ProjectionRunner(store, readModels, projections, logger);
    await runner.start();
    await runner.waitFor(await store.head());
  });
  after(async () => {
    await runner?.stop();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads every event of the old log', async () => {
    const head = await store.head();
    assert.equal(head, answers.digests.trades.position);
    assert.equal((await store.readAll(0, 10_000)).length, head);
  });

  it('answers every order as that day\'s code did', async () => {
    const rows = await readModels.find<OrderDoc>('orders', { orderBy: [{ column: 'id' }] });
    const orders: Record<string, unknown> = {};
    for (const row of rows) {
      const order = presentOrder(stateOf(row.doc), answers.now, SETTLEMENT);
      if (order) orders[row.key] = order;
    }
    assert.ok(Object.keys(answers.orders).length > 50);
    assert.deepEqual(orders, answers.orders);
    const statuses = new Set(Object.values(orders).map((o) => (o as { status: string }).status));
    assert.deepEqual([...statuses].sort(), ['cancelled', 'open']);
  });

  it('has the same trades, documents and digest', async () => {
    const trades = (await readModels.find('trades', { orderBy: [{ column: 'id' }] })).map((row) => row.doc);
    assert.deepEqual(trades, answers.trades);
    assert.deepEqual(await digestReadModel(readModels, 'trades'), answers.digests.trades);
  });

  it('gives the rebuilt read models\' digests in the auditor\'s replay', async () => {
    const live: Record<string, Digest> = {};
    for (const p of projections) live[p.name] = await digestReadModel(readModels, p.name);
    const replayed = await replayOrderbook({ store: { dataDir: dir }, workers: 2 });
    assert.deepEqual(replayed.digests, live);
    assert.equal(live.orders.documents, Object.keys(answers.orders).length);
  });

  it('gives the chain facts that stand for an indexer that ran before it recorded them', async () => {
    const facts = await standingFactsInLog(store);
    const trades = await readModels.find('trades', { orderBy: [{ column: 'id' }] });
    // The trade facts are the trades the read model kept: reverted ones left out, the one that came back in.
    const tradeKeys = trades.map((row) => row.key).sort();
    const factKeys = facts.map((f) => `${f.blockHash}:${f.logIndex}`);
    assert.deepEqual(factKeys.filter((k) => tradeKeys.includes(k)).sort(), tradeKeys);
    // Beside them: the on-chain invalidation, and the presignature given then revoked (two logs, both standing).
    const others = facts.filter((f) => !tradeKeys.includes(`${f.blockHash}:${f.logIndex}`));
    assert.deepEqual(others.map((f) => f.blockNumber).sort(), [1001, 1002, 1003]);
    assert.equal(facts.length, trades.length + 3);
  });
});
