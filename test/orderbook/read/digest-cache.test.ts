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
import { databaseUrl, dropSchema } from '../../support/postgres.js';

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

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('DigestCache', () => {
  it('keeps a digest while its read model has not moved', async () => {
    const c = controlled();
    const cache = new DigestCache(c.compute, ['orders', 'trades']);
    c.moveTo(5);
    const first = cache.digest('orders', 5);
    await tick();
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
    await tick();
    c.moveTo(2);
    const asked = [cache.digest('orders', 2), cache.digest('orders', 2), cache.digest('orders', 2)];
    await tick();
    assert.equal(c.calls.length, 1, 'nothing starts while one runs');
    c.calls[0].finish();
    assert.equal((await a).position, 1);
    await tick();
    assert.equal(c.calls.length, 2, 'one next computation for all three');
    c.calls[1].finish();
    assert.deepEqual((await Promise.all(asked)).map((d) => d.position), [2, 2, 2]);
  });

  it('passes a failure to those waiting on it, and computes again at the next request', async () => {
    const c = controlled();
    const cache = new DigestCache(c.compute, ['orders']);
    c.moveTo(7);
    const failing = cache.digest('orders', 7);
    await tick();
    c.calls[0].fail();
    await assert.rejects(failing, /store unreachable/);
    const again = cache.digest('orders', 7);
    await tick();
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

    it("gives the digests of the store's own snapshot, read on a connection of its own", async () => {
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
        assert.ok(inProcess.orders.documents > 0);
        assert.deepEqual(await digestsInWorker(options)(names), inProcess);
      } finally {
        await runner.stop();
        await events.close();
      }
    });
  });
}
