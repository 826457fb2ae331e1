/** The table of what is in flight (src/shared/in-flight.ts): a Map's semantics, without a Map's promotions. */
import assert from 'node:assert/strict';
import { GCProfiler } from 'node:v8';
import fc from 'fast-check';
import { InFlight } from '../src/shared/in-flight.js';
import { promotedBytes } from './support/gc.js';

type Op = { kind: 'set'; key: string; value: number } | { kind: 'delete'; key: string } | { kind: 'clear' };

// Keys an object-backed table could get wrong: inherited names, numeric strings, the empty string.
const key = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', '0', '1', '01', '', 'k'), fc.string({ maxLength: 4 }));
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('set' as const), key, value: fc.integer() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('delete' as const), key }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clear' as const) }) },
);

/** Bytes young-generation collections moved to the old generation while `work` ran. */
function promotedBy(work: () => void): number {
  const profiler = new GCProfiler();
  profiler.start();
  work();
  return promotedBytes(profiler.stop().statistics);
}

/** 50 entries in flight at a time, `count` taken and dropped, each holding ~1 KB, in a table that is already old. */
function churn(table: { set(key: string, value: unknown): unknown; delete(key: string): unknown }, count: number): number {
  // Enough garbage for a few young-generation collections: the table is in the old generation afterwards,
  // as a service's tables are after its first seconds.
  for (let i = 0; i < 200_000; i++) void new Array(16).fill(i);
  return promotedBy(() => {
    const live: string[] = [];
    for (let i = 0; i < count; i++) {
      const id = `call-${i}`;
      table.set(id, { payload: new Array(100).fill(i) });
      live.push(id);
      if (live.length > 50) table.delete(live.shift()!);
    }
  });
}

describe('InFlight', () => {
  it('answers as a Map does for generated sequences of sets, deletes and clears', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const table = new InFlight<number>();
        const model = new Map<string, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            table.set(o.key, o.value);
            model.set(o.key, o.value);
          } else if (o.kind === 'delete') {
            assert.equal(table.delete(o.key), model.delete(o.key));
          } else {
            table.clear();
            model.clear();
          }
          assert.equal(table.size, model.size);
        }
        for (const k of ['__proto__', 'constructor', 'toString', '0', 'k']) assert.equal(table.get(k), model.get(k));
        assert.deepEqual([...table.values()].sort(), [...model.values()].sort());
      }),
      { seed: 20261125, numRuns: 500 },
    );
  });

  it('does not keep what it dropped through young-generation collections, as a long-lived Map does', () => {
    const count = 200_000;
    const byMap = churn(new Map(), count);
    const byTable = churn(new InFlight(), count);
    // The Map is the control: its replaced hash tables, in the old generation, promote nearly every entry.
    assert.ok(byMap / count > 200, `a Map promoted ${(byMap / count).toFixed(0)} B per entry`);
    assert.ok(byTable / count < 50, `InFlight promoted ${(byTable / count).toFixed(0)} B per entry`);
  });
});
