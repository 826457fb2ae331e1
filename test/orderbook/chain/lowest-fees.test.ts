/**
 * The fee rule's store (chain/lowest-fees.ts) against the rule written plainly: the lowest fee among every
 * quote still unexpired. Without buckets it is the same answer; with buckets never a lower one (stricter,
 * never looser), and the same whenever no quote was left out; and the number kept stays within the bound.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LowestFees } from '../../../src/orderbook/chain/lowest-fees.js';

const TTL = 10_000;

/** Quotes at non-decreasing times (ms steps), each with a fee, and query times among them. */
const scenario = fc.array(
  fc.record({ step: fc.integer({ min: 0, max: 3_000 }), fee: fc.bigInt({ min: 1n, max: 50n }), probe: fc.integer({ min: 0, max: 12_000 }) }),
  { minLength: 1, maxLength: 200 },
);

function plainLowest(quotes: { fee: bigint; expiresAt: number }[], at: number): bigint | undefined {
  let low: bigint | undefined;
  for (const q of quotes) if (q.expiresAt > at && (low === undefined || q.fee < low)) low = q.fee;
  return low;
}

describe('LowestFees: the lowest unexpired fee per token', () => {
  it('without buckets answers exactly what the plain rule answers', () => {
    fc.assert(
      fc.property(scenario, (steps) => {
        const fees = new LowestFees<bigint>(0);
        const given: { fee: bigint; expiresAt: number }[] = [];
        let now = 0;
        for (const { step, fee, probe } of steps) {
          now += step;
          fees.add('t', fee, now + TTL, fee, now);
          given.push({ fee, expiresAt: now + TTL });
          assert.equal(fees.lowest('t', now, now), plainLowest(given, now));
          assert.equal(fees.lowest('t', now + probe, now), plainLowest(given, now + probe));
        }
      }),
    );
  });

  it('with buckets is never looser, and holds at most TTL / bucket + 1 candidates', () => {
    const bucket = 1_000;
    fc.assert(
      fc.property(scenario, (steps) => {
        const fees = new LowestFees<bigint>(bucket);
        const given: { fee: bigint; expiresAt: number }[] = [];
        let now = 0;
        for (const { step, fee } of steps) {
          now += step;
          fees.add('t', fee, now + TTL, fee, now);
          given.push({ fee, expiresAt: now + TTL });
          const plain = plainLowest(given, now)!;
          const kept = fees.lowest('t', now, now);
          assert.ok(kept !== undefined && kept >= plain, `kept ${kept} vs plain ${plain}`);
          assert.ok(fees.size('t') <= TTL / bucket + 1, `size ${fees.size('t')}`);
        }
      }),
    );
  });

  it('keeps the lower of two quotes in one bucket, and each token apart', () => {
    const fees = new LowestFees<string>(1_000);
    fees.add('a', 5n, 10_100, 'a5', 100);
    fees.add('a', 7n, 10_900, 'a7', 900); // same expiry second, higher: not kept
    fees.add('b', 1n, 10_500, 'b1', 500);
    assert.equal(fees.size('a'), 1);
    assert.equal(fees.lowest('a', 1_000, 1_000), 'a5');
    assert.equal(fees.lowest('b', 1_000, 1_000), 'b1');
    fees.add('a', 3n, 11_200, 'a3', 1_200); // lower and later: replaces
    assert.equal(fees.size('a'), 1);
    assert.equal(fees.lowest('a', 1_200, 1_200), 'a3');
    assert.equal(fees.lowest('a', 11_200, 11_200), undefined);
    assert.equal(fees.size('a'), 0);
  });
});
