/**
 * The work gate's rule (src/shared/work-gate.ts), by example and as a property over random arrivals,
 * durations and failures: never more than `concurrency` works at once, a work is refused only when every
 * place is taken and the queue is full, waiters start first come first served, and a failing work frees its
 * place like a succeeding one.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { GateFull, WorkGate } from '../../src/shared/work-gate.js';
import { nextTurn } from '../../src/shared/next-turn.js';

async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await nextTurn();
}

describe('work gate', () => {
  it('runs up to its concurrency, queues up to its queue, refuses one more, and frees places on failure', async () => {
    const gate = new WorkGate({ concurrency: 2, queue: 1 });
    const releases: (() => void)[] = [];
    const started: number[] = [];
    const work = (n: number, fail = false) => () =>
      new Promise<number>((resolve, reject) => {
        started.push(n);
        releases[n] = () => (fail ? reject(new Error(`work ${n} failed`)) : resolve(n));
      });
    const one = gate.run(work(1, true));
    const two = gate.run(work(2));
    const three = gate.run(work(3));
    await turns(1);
    assert.deepEqual(started, [1, 2], 'the third waits');
    assert.deepEqual(gate.load, { running: 2, waiting: 1 });
    await assert.rejects(gate.run(work(4)), GateFull);
    assert.deepEqual(started, [1, 2], 'a refused work never starts');
    releases[1]();
    await assert.rejects(one, /work 1 failed/);
    await turns(1);
    assert.deepEqual(started, [1, 2, 3], 'the failed work gave its place to the waiter');
    releases[2]();
    releases[3]();
    assert.deepEqual(await Promise.all([two, three]), [2, 3]);
    assert.deepEqual(gate.load, { running: 0, waiting: 0 });
  });

  it('as a property: bounded, refused only when full, first come first served, always back to empty', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 5 }),
        fc.array(fc.record({ arriveTurn: fc.integer({ min: 0, max: 6 }), turns: fc.integer({ min: 0, max: 4 }), fails: fc.boolean() }), { maxLength: 30 }),
        async (concurrency, queue, works) => {
          const gate = new WorkGate({ concurrency, queue });
          let running = 0;
          let most = 0;
          const startOrder: number[] = [];
          const admitted: number[] = [];
          const settled: Promise<unknown>[] = [];
          const byTurn = [...works.keys()].sort((a, b) => works[a].arriveTurn - works[b].arriveTurn || a - b);
          let turn = 0;
          for (const i of byTurn) {
            while (turn < works[i].arriveTurn) {
              await nextTurn();
              turn++;
            }
            const { running: before, waiting } = gate.load;
            const full = before >= concurrency && waiting >= queue;
            const result = gate.run(async () => {
              startOrder.push(i);
              most = Math.max(most, ++running);
              await turns(works[i].turns);
              running--;
              if (works[i].fails) throw new Error('failed');
              return i;
            });
            settled.push(
              result.then(
                () => assert.ok(!full && !works[i].fails),
                (err: unknown) => assert.ok(full ? err instanceof GateFull : works[i].fails && !(err instanceof GateFull)),
              ),
            );
            if (!full) admitted.push(i);
          }
          await Promise.all(settled);
          assert.ok(most <= concurrency, `at most ${concurrency} at once, saw ${most}`);
          assert.deepEqual(startOrder, admitted, 'admitted works start in the order they came, refused ones never');
          assert.deepEqual(gate.load, { running: 0, waiting: 0 });
        },
      ),
      { numRuns: 200 },
    );
  });
});
