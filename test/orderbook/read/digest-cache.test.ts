/**
 * DigestCache (read/digest-cache.ts): a digest is computed again only when a read model moved past the one
 * kept, one computation at a time, and the requests arriving during one share a single next one. The
 * computation there is a stand-in that counts its calls and ends when the test says. The real one, a worker
 * thread on a connection of its own, gives the digests the store gives, on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DigestCache, digestsInWorker } from '../../../src/orderbook/read/digest-cache.js';
import { digestReadModel, type Digest } from '../../../src/orderbook/read/digest.js';
import { openEventStore, type EventStoreOptions } from '../../../src/orderbook/store/index.js';
import { readModelStoreFor } from '../../../src/orderbook/read/models/index.js';
import { ProjectionRunner } from '../../../src/orderbook/read/runner.js';
import { projections } from '../../../src/orderbook/read/projections/index.js';
import { logger } from '../../../src/shared/logger.js';
import { synthesiseLog } from '../../support/synthetic-log.js';
import { appDataRegistered, appDataStreamId } from '../../../src/orderbook/write/book-events.js';
import { checkOrderEvent, orderStreamId } from '../../../src/orderbook/write/events.js';
import { databaseUrl, dropSchema } from '../../support/postgres.js';
import { nextTurn } from '../../../src/shared/next-turn.js';

function controlled() {
  let position = 0;
  const calls: { finish(): void; fail(): void }[] = [];
  const compute = (names: string[]) =>
    new Promise<Record<string, Digest>>((resolve, reject) => {
      const at = position;
      calls.push({
        finish: () => resolve(Object.fromEntries(names.map((n) => [n, { position: at, documents: at, sha256: `${n}@${at}` }]))),
        fail: () => reject(new Error('store unreachable')),
      });
    });
  return { compute, calls, moveTo: (p: number) => (position = p) };
}


describe('DigestCache', () => {
  it('keeps a digest while its read model has not moved', async () => {
    const c = controlled();
    const cache = new DigestCache(c.compute, ['orders', 'trades']);
    c.moveTo(5);
    const first = cache.digest('orders', 5);
    await nextTurn();
    c.calls[0].finish();
    assert.equal((await first).sha256, 'orders@5');
    assert.equal((await cache.digest('trades', 5)).sha256, 'trades@5');
    assert.equal((await cache.digest('orders', 3)).sha256, 'orders@5', 'an older position is answered by the newer digest');
    assert.equal(c.calls.length, 1);
  });

  it('runs one computation at a time; those asking during it share one next computation', async () => {
    const c = controlled();
    const cache = new DigestCache(c.compute, ['orders']);
    c.moveTo(1);
    const a = cache.digest('orders', 1);
    await nextTurn();
    c.moveTo(2);
    const asked = [cache.digest('orders', 2), cache.digest('orders', 2), cache.digest('orders', 2)];
    await nextTurn();
    assert.equal(c.calls.length, 1, 'nothing starts while one runs');
    c.calls[0].finish();
    assert.equal((await a).position, 1);
    await nextTurn();
    assert.equal(c.calls.length, 2, 'one next computation for all three');
    c.calls[1].finish();
    assert.deepEqual((await Promise.all(asked)).map((d) => d.position), [2, 2, 2]);
  });

  it('passes a failure to those waiting on it, and computes again at the next request', async () => {
    const c = controlled();
    const cache = new DigestCache(c.compute, ['orders']);
    c.moveTo(7);
    const failing = cache.digest('orders', 7);
    await nextTurn();
    c.calls[0].fail();
    await assert.rejects(failing, /store unreachable/);
    const again = cache.digest('orders', 7);
    await nextTurn();
    c.calls[1].finish();
    assert.equal((await again).sha256, 'orders@7');
  });
});

for (const engine of ['SQLite', 'PostgreSQL'] as const) {
  describe(`digests in a worker thread: ${engine}`, function () {
    this.timeout(120_000);
    let dir: string;
    let options: EventStoreOptions;

    before(function () {
      if (engine === 'PostgreSQL' && !databaseUrl) this.skip();
      dir = mkdtempSync(join(tmpdir(), 'ethgate-digest-worker-'));
      options = engine === 'SQLite' ? { dataDir: dir } : { dataDir: dir, databaseUrl, pgSchema: `dw_${process.pid}_${Date.now().toString(36)}` };
    });
    after(async () => {
      if (dir) rmSync(dir, { recursive: true, force: true });
      if (engine === 'PostgreSQL') await dropSchema(options?.pgSchema);
    });

    it("gives the digests of the store's own snapshot, keeping one only while none of its documents changed", async () => {
      const events = await openEventStore(options);
      const readModels = readModelStoreFor(events);
      const runner = new ProjectionRunner(events, readModels, projections, logger);
      try {
        await synthesiseLog(events, 600);
        await runner.start();
        await runner.waitFor(await events.head());
        const names = projections.map((p) => p.name);
        const inProcess: Record<string, Digest> = {};
        for (const name of names) inProcess[name] = await digestReadModel(readModels, name);
        assert.ok(inProcess.orders.documents > 0 && inProcess.trades.documents > 0);
        const compute = digestsInWorker(options);
        assert.deepEqual(await compute(names, {}), inProcess);

        // Only the checkpoints move (an app data document): the digests it was given hold at the new position.
        const at = '2026-11-28T00:00:00.000Z';
        await events.append(appDataStreamId('0x' + 'cd'.repeat(32)), [appDataRegistered({ hash: '0x' + 'cd'.repeat(32), fullAppData: '{}', registeredAt: at })], 0);
        await runner.waitFor(await events.head());
        const moved = await compute(names, inProcess);
        for (const name of names) {
          assert.equal(moved[name].position, await events.head());
          assert.deepEqual(moved[name], await digestReadModel(readModels, name));
        }
        // A document removed alone (a trade reverted): the count tells, and the read model is hashed again.
        const trade = (await events.readAll(0, 1000)).find((e) => e.type === 'TradeRecorded')!;
        const { uid, chain } = trade.data as { uid: string; chain: object };
        await events.append(orderStreamId(uid), [checkOrderEvent({ type: 'ChainEventReverted', schemaVersion: 1, data: { uid, chain, reverted: 'TradeRecorded' } })], 'any');
        await runner.waitFor(await events.head());
        const reverted = await compute(names, moved);
        for (const name of names) assert.deepEqual(reverted[name], await digestReadModel(readModels, name));
        assert.equal(reverted.trades.documents, moved.trades.documents - 1);
        assert.notEqual(reverted.trades.sha256, moved.trades.sha256);
        assert.notEqual(reverted.orders.sha256, moved.orders.sha256, "the order's executed amounts changed too");
      } finally {
        await runner.stop();
        await events.close();
      }
    });
  });
}
