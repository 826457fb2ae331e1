/** The state behind /healthz's readiness and the catch-up bounds: hysteresis, catch-up turns. */
import assert from 'node:assert/strict';
import { Readiness } from '../../../src/orderbook/live/readiness.js';
import { Turns } from '../../../src/orderbook/live/turns.js';
import { nextTurn } from '../../../src/shared/next-turn.js';

describe('readiness and catch-up turns', () => {
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
    await nextTurn();
    await nextTurn();
    assert.deepEqual(order, [0, 1], 'two at once');
    releases[0]();
    releases[0]();
    await Promise.resolve();
    assert.deepEqual(order, [0, 1], 'not granted in the chain of the release');
    await nextTurn();
    await nextTurn();
    assert.deepEqual(order, [0, 1, 2], 'a released turn (given back once) goes to the next waiter');
    releases[1]();
    releases[2]();
    await nextTurn();
    await nextTurn();
    assert.deepEqual(order, [0, 1, 2, 3, 4]);
    for (const release of releases.slice(3)) release();
    await Promise.all(takers);
  });
});
