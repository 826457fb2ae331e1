/**
 * The turn-batcher's rule (src/shared/turn-batcher.ts), first by example, then as properties over random
 * turns, limits and failures: every item settles exactly once with the outcome its own flush gave it, items
 * leave in the order they came, no flush exceeds its limits, and a failed flush touches nothing else.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TurnBatcher, TurnBatcherError, type Outcome } from '../../src/shared/turn-batcher.js';
import { nextTurn } from '../../src/shared/next-turn.js';


async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await nextTurn();
}

/** Settles `promise` into a value to compare: { ok } or { err }. */
function outcomeOf<R>(promise: Promise<R>): Promise<{ ok: R } | { err: unknown }> {
  return promise.then(
    (ok) => ({ ok }),
    (err: unknown) => ({ err }),
  );
}

describe('turn-batcher', () => {
  it('flushes the items of one turn together, in order, after the turn', async () => {
    const flushes: number[][] = [];
    const batcher = new TurnBatcher<number, number>((items) => {
      flushes.push(items);
      return items.map((n) => n * 10);
    });
    const first = [1, 2, 3].map((n) => batcher.add(n));
    await Promise.resolve();
    first.push(batcher.add(4)); // a microtask later: still the same turn
    assert.deepEqual(flushes, []);
    assert.deepEqual(await Promise.all(first), [10, 20, 30, 40]);
    assert.equal(await batcher.add(5), 50);
    assert.deepEqual(flushes, [[1, 2, 3, 4], [5]]);
  });

  it('fails one item on its Error outcome, follows a promise outcome, and fails items left without one', async () => {
    const refused = new Error('refused');
    const batcher = new TurnBatcher<string, string>(async (items) => {
      const outcomes: Outcome<string>[] = [items[0], refused, Promise.resolve('later')];
      return outcomes;
    });
    const results = await Promise.all(['a', 'b', 'c', 'd'].map((s) => outcomeOf(batcher.add(s))));
    assert.deepEqual(results.slice(0, 3), [{ ok: 'a' }, { err: refused }, { ok: 'later' }]);
    assert.ok('err' in results[3] && results[3].err instanceof TurnBatcherError);
  });

  it('fails exactly the items of a flush that throws or rejects, and flushes the next turn as usual', async () => {
    let calls = 0;
    const batcher = new TurnBatcher<number, number>((items) => {
      calls++;
      if (calls === 1) throw new Error('thrown');
      if (calls === 2) return Promise.reject(new Error('rejected'));
      return items;
    });
    const thrown = [1, 2].map((n) => outcomeOf(batcher.add(n)));
    await nextTurn();
    const rejected = [3].map((n) => outcomeOf(batcher.add(n)));
    await nextTurn();
    const fine = [4, 5].map((n) => batcher.add(n));
    assert.deepEqual((await Promise.all(thrown)).map((o) => ('err' in o ? (o.err as Error).message : o)), ['thrown', 'thrown']);
    assert.deepEqual((await Promise.all(rejected)).map((o) => ('err' in o ? (o.err as Error).message : o)), ['rejected']);
    assert.deepEqual(await Promise.all(fine), [4, 5]);
  });

  it('splits a turn into flushes of at most maxItems, all at once without a concurrency limit', async () => {
    const sizes: number[] = [];
    let inFlight = 0;
    let most = 0;
    const batcher = new TurnBatcher<number, number>(
      async (items) => {
        sizes.push(items.length);
        most = Math.max(most, ++inFlight);
        await nextTurn();
        inFlight--;
        return items;
      },
      { maxItems: 3 },
    );
    const all = Array.from({ length: 8 }, (_, i) => batcher.add(i));
    assert.deepEqual(await Promise.all(all), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(sizes, [3, 3, 2]);
    assert.equal(most, 3);
  });

  it('with concurrency 1, collects while a flush runs and sends what came meanwhile as one batch after it', async () => {
    const flushes: number[][] = [];
    let release!: () => void;
    const batcher = new TurnBatcher<number, number>(
      async (items) => {
        flushes.push(items);
        if (flushes.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return items;
      },
      { concurrency: 1 },
    );
    const first = batcher.add(1);
    await nextTurn();
    const during = [batcher.add(2)];
    await nextTurn();
    during.push(batcher.add(3));
    await turns(3);
    assert.deepEqual(flushes, [[1]]);
    release();
    assert.deepEqual(await Promise.all([first, ...during]), [1, 2, 3]);
    assert.deepEqual(flushes, [[1], [2, 3]]);
  });

  it('fails what waits on failWaiting, and idle() resolves once nothing is waiting or being flushed', async () => {
    let release!: () => void;
    const batcher = new TurnBatcher<number, number>(
      async (items) => {
        await new Promise<void>((resolve) => (release = resolve));
        return items;
      },
      { concurrency: 1 },
    );
    const flushed = batcher.add(1);
    await nextTurn();
    const waiting = outcomeOf(batcher.add(2));
    let idle = false;
    const becameIdle = batcher.idle().then(() => (idle = true));
    batcher.failWaiting(new Error('closed'));
    const failed = await waiting;
    assert.ok('err' in failed && (failed.err as Error).message === 'closed');
    await turns(2);
    assert.equal(idle, false, 'a flush is still running');
    release();
    assert.equal(await flushed, 1);
    await becameIdle;
    assert.equal(idle, true);
  });

  describe('properties', () => {
    type ItemPlan = 'value' | 'error' | 'promise' | 'promise-error';
    interface FlushPlan {
      mode: 'sync' | 'async' | 'throw' | 'reject';
      /** Turns an async flush takes. */
      delay: number;
      items: ItemPlan[];
      /** Whether the answer leaves out its last outcome. */
      short: boolean;
    }
    const itemPlan = fc.constantFrom<ItemPlan>('value', 'value', 'error', 'promise', 'promise-error');
    const flushPlan: fc.Arbitrary<FlushPlan> = fc.record({
      mode: fc.constantFrom<FlushPlan['mode']>('sync', 'async', 'async', 'throw', 'reject'),
      delay: fc.integer({ min: 0, max: 3 }),
      items: fc.array(itemPlan, { minLength: 8, maxLength: 8 }),
      short: fc.boolean(),
    });
    const scenario = fc.record({
      maxItems: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
      concurrency: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
      /** Items added per turn, some of them a microtask after the others (still the same turn). */
      turns: fc.array(fc.record({ now: fc.integer({ min: 0, max: 5 }), later: fc.integer({ min: 0, max: 2 }) }), { minLength: 1, maxLength: 8 }),
      flushes: fc.array(flushPlan, { minLength: 1, maxLength: 12 }),
    });

    it('every item settles exactly once, with the outcome its flush gave it, in order within a flush', async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async ({ maxItems, concurrency, turns: plan, flushes: plans }) => {
          /** What each item must settle with, by id, set when its flush answers. */
          const expected = new Map<number, { ok: number } | { err: unknown }>();
          /** Ids of each flush, and whether each item's outcome was given directly (not a promise). */
          const flushed: { ids: number[]; direct: boolean[] }[] = [];
          const turnOf: number[] = [];
          let inFlight = 0;
          let most = 0;
          const batcher = new TurnBatcher<number, number>(
            (ids) => {
              const p = plans[flushed.length % plans.length];
              const record = { ids, direct: ids.map(() => true) };
              flushed.push(record);
              most = Math.max(most, ++inFlight);
              const failure = new Error(`flush ${flushed.length} failed`);
              if (p.mode === 'throw') {
                inFlight--;
                for (const id of ids) expected.set(id, { err: failure });
                throw failure;
              }
              if (p.mode === 'reject') {
                return turns(p.delay).then(() => {
                  inFlight--;
                  for (const id of ids) expected.set(id, { err: failure });
                  throw failure;
                });
              }
              // The answer, made when it is given; a short one leaves out the last item.
              const answer = (): Outcome<number>[] => {
                const given = p.short ? ids.length - 1 : ids.length;
                if (p.short) expected.set(ids[ids.length - 1], { err: TurnBatcherError });
                return ids.slice(0, given).map((id, i) => {
                  const kind = p.items[i % p.items.length];
                  if (kind === 'value') {
                    expected.set(id, { ok: id * 2 });
                    return id * 2;
                  }
                  const err = new Error(`item ${id} failed`);
                  if (kind === 'error') {
                    expected.set(id, { err });
                    return err;
                  }
                  record.direct[i] = false;
                  expected.set(id, kind === 'promise' ? { ok: id * 3 } : { err });
                  return turns(p.delay).then(() => (kind === 'promise' ? id * 3 : Promise.reject(err)));
                });
              };
              if (p.mode === 'sync') {
                inFlight--;
                return answer();
              }
              return turns(p.delay).then(() => {
                inFlight--;
                return answer();
              });
            },
            { maxItems, concurrency },
          );

          const settled = new Map<number, { ok: number } | { err: unknown }>();
          const settleOrder: number[] = [];
          let count = 0;
          const add = (turn: number) => {
            const id = count++;
            turnOf[id] = turn;
            batcher.add(id).then(
              (ok) => {
                assert.ok(!settled.has(id), `item ${id} settled twice`);
                settled.set(id, { ok });
                settleOrder.push(id);
              },
              (err: unknown) => {
                assert.ok(!settled.has(id), `item ${id} settled twice`);
                settled.set(id, { err });
                settleOrder.push(id);
              },
            );
          };
          for (const [turn, { now, later }] of plan.entries()) {
            for (let i = 0; i < now; i++) add(turn);
            await Promise.resolve();
            for (let i = 0; i < later; i++) add(turn);
            await nextTurn();
          }
          await batcher.idle();
          for (let i = 0; i < 20 && settled.size < count; i++) await nextTurn();

          // Exactly once, each with what its own flush said.
          assert.equal(settled.size, count, 'every item settled');
          for (let id = 0; id < count; id++) {
            const want = expected.get(id)!;
            const got = settled.get(id)!;
            if ('ok' in want) assert.deepEqual(got, want, `item ${id}`);
            else if (want.err === TurnBatcherError) assert.ok('err' in got && got.err instanceof TurnBatcherError, `item ${id}`);
            else assert.ok('err' in got && got.err === want.err, `item ${id}: ${String('err' in got ? got.err : got.ok)}`);
          }
          // In the order they came, each once; no flush empty or over its limits.
          assert.deepEqual(flushed.flatMap((f) => f.ids), Array.from({ length: count }, (_, i) => i));
          for (const f of flushed) assert.ok(f.ids.length > 0 && f.ids.length <= (maxItems ?? Infinity));
          assert.ok(most <= (concurrency ?? Infinity), `${most} flushes at once`);
          // Without a concurrency limit nothing waits: a flush holds items of one turn only.
          if (concurrency === undefined) for (const f of flushed) assert.equal(new Set(f.ids.map((id) => turnOf[id])).size, 1);
          // Items a flush settled directly settle in its order.
          for (const f of flushed) {
            const direct = f.ids.filter((_, i) => f.direct[i]).map((id) => settleOrder.indexOf(id));
            assert.deepEqual(direct, [...direct].sort((a, b) => a - b));
          }
        }),
        { numRuns: 300 },
      );
    });
  });
});
