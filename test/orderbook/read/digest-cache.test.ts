/**
 * DigestCache (read/digest-cache.ts): a digest is computed again only when a read model moved past the one
 * kept, one computation at a time, and the requests arriving during one share a single next one. The
 * computation here is a stand-in that counts its calls and ends when the test says; the real one (a worker
 * thread over the store) is held to the live digests in test/orderbook/replay.test.ts.
 */
import assert from 'node:assert/strict';
import { DigestCache } from '../../../src/orderbook/read/digest-cache.js';
import type { Digest } from '../../../src/orderbook/read/digest.js';

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
