/** The state behind /healthz's readiness and the stream bounds: hysteresis, per-address counting, catch-up turns. */
import assert from 'node:assert/strict';
import { Readiness } from '../../../src/orderbook/live/readiness.js';
import { ConnectionCap } from '../../../src/http/connection-cap.js';
import { Turns } from '../../../src/orderbook/live/turns.js';

describe('readiness and connection caps', () => {
  it('is not ready before the read models were ever level, then ready while they were level within the bound', () => {
    const r = new Readiness(1_000);
    assert.equal(r.ready(5, 10, 0), false, 'still replaying');
    assert.equal(r.ready(10, 10, 100), true);
    assert.equal(r.ready(10, 12, 600), true, 'trailing for a moment');
    r.observe(12, 12, 900); // level again between two probes
    assert.equal(r.ready(12, 20, 1_800), true);
    assert.equal(r.ready(15, 20, 1_901), false, 'trailing for longer than the bound');
    assert.equal(r.ready(20, 20, 1_950), true, 'ready again once caught up');
  });

  it('counts places per client and in all, and gives each back once', () => {
    const cap = new ConnectionCap({ perClient: 2, total: 3 }, 'streams', { perClient: 'PER', total: 'TOTAL' });
    const a1 = cap.admit('a');
    const a2 = cap.admit('a');
    assert.ok(a1.admitted && a2.admitted);
    const a3 = cap.admit('a');
    assert.equal(a3.admitted, false);
    assert.equal(!a3.admitted && a3.scope, 'client');
    assert.ok(cap.admit('b').admitted);
    const c = cap.admit('c');
    assert.equal(!c.admitted && c.scope, 'total');
    assert.match(!c.admitted ? c.description : '', /\(3, TOTAL\)/);
    if (a1.admitted) {
      a1.release();
      a1.release();
    }
    assert.equal(cap.count(), 2);
    assert.equal(cap.count('a'), 1);
    assert.ok(cap.admit('c').admitted);
    assert.equal(cap.admit('d').admitted, false);
  });

  it('grants catch-up turns at most `size` at once and per turn of the event loop, in order, never in the releasing chain', async () => {
    const turns = new Turns(2);
    const order: number[] = [];
    const releases: (() => void)[] = [];
    const takers = Array.from({ length: 5 }, (_, i) =>
      turns.take().then((release) => {
        order.push(i);
        releases.push(release);
      }),
    );
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, [0, 1], 'two at once');
    releases[0]();
    releases[0]();
    await Promise.resolve();
    assert.deepEqual(order, [0, 1], 'not granted in the chain of the release');
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, [0, 1, 2], 'a released turn (given back once) goes to the next waiter');
    releases[1]();
    releases[2]();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, [0, 1, 2, 3, 4]);
    for (const release of releases.slice(3)) release();
    await Promise.all(takers);
  });
});
