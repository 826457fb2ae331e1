/**
 * The dev solver's matching rules against the settlement contract's own arithmetic: a model of
 * GPv2Settlement.computeTradeExecution (limit check, fill rules, rounding, proportional fees) written from
 * the contract, independent of the rules' code, run on random orders with fast-check.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Backoff } from '../../src/devsolver/backoff.js';
import { ConfigError, loadConfig } from '../../src/wiring/config.js';
import { crossingPairs, crosses, executable, matchPair, type Match, type SolverOrder } from '../../src/devsolver/matching.js';

const T1 = '0x1111111111111111111111111111111111111111';
const T2 = '0x2222222222222222222222222222222222222222';
const T3 = '0x3333333333333333333333333333333333333333';

/** GPv2Settlement.computeTradeExecution for one trade: what the owner pays (fee included) and receives. */
function contractExecution(order: SolverOrder, executedAmount: bigint, sellPrice: bigint, buyPrice: bigint) {
  if (order.sellAmount * sellPrice < order.buyAmount * buyPrice) throw new Error('GPv2: limit price not respected');
  let sell: bigint;
  let buy: bigint;
  let fee: bigint;
  let filled: bigint;
  if (order.kind === 'sell') {
    sell = order.partiallyFillable ? executedAmount : order.sellAmount;
    fee = order.partiallyFillable ? (order.feeAmount * sell) / order.sellAmount : order.feeAmount;
    buy = (sell * sellPrice + buyPrice - 1n) / buyPrice;
    filled = order.executed + sell;
    if (filled > order.sellAmount) throw new Error('GPv2: order filled');
  } else {
    buy = order.partiallyFillable ? executedAmount : order.buyAmount;
    fee = order.partiallyFillable ? (order.feeAmount * buy) / order.buyAmount : order.feeAmount;
    sell = (buy * buyPrice) / sellPrice;
    filled = order.executed + buy;
    if (filled > order.buyAmount) throw new Error('GPv2: order filled');
  }
  if (!order.partiallyFillable && order.executed !== 0n) throw new Error('GPv2: order filled');
  return { pays: sell + fee, fee, receives: buy };
}

/** Runs a match through the contract model: every trade's flows, and the settlement contract's net per token. */
function settleModel(match: Match) {
  const price = (token: string) => match.prices[match.tokens.indexOf(token)];
  const net = new Map<string, bigint>(match.tokens.map((t) => [t, 0n]));
  const flows = match.trades.map(({ order, executedAmount }) => {
    const flow = contractExecution(order, executedAmount, price(order.sellToken), price(order.buyToken));
    net.set(order.sellToken, net.get(order.sellToken)! + flow.pays);
    net.set(order.buyToken, net.get(order.buyToken)! - flow.receives);
    return flow;
  });
  return { flows, net };
}

const amount = fc.bigInt({ min: 1n, max: 10n ** 24n });
const smallAmount = fc.bigInt({ min: 1n, max: 1000n });

function orderArb(sellToken: string, buyToken: string, amounts = amount) {
  return fc
    .record({
      sellAmount: amounts,
      buyAmount: amounts,
      feeAmount: fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 10n ** 20n })),
      kind: fc.constantFrom('sell' as const, 'buy' as const),
      partiallyFillable: fc.boolean(),
      executedShare: fc.integer({ min: 0, max: 99 }),
      available: fc.option(fc.bigInt({ min: 0n, max: 10n ** 25n }), { nil: undefined }),
      id: fc.integer({ min: 0, max: 1e9 }),
    })
    .map(({ executedShare, id, ...o }): SolverOrder => {
      const total = o.kind === 'sell' ? o.sellAmount : o.buyAmount;
      const executed = o.partiallyFillable ? (total * BigInt(executedShare)) / 100n : 0n;
      return { uid: `0x${id.toString(16)}`, sellToken, buyToken, executed, ...o };
    });
}

describe('dev solver matching', () => {
  it('a match respects both limit prices to the wei, fills no order beyond its amount and leaves the settlement contract short of nothing', () => {
    fc.assert(
      fc.property(fc.oneof(orderArb(T1, T2), orderArb(T1, T2, smallAmount)), fc.oneof(orderArb(T2, T1), orderArb(T2, T1, smallAmount)), (a, b) => {
        const match = matchPair(a, b);
        if (!match) return;
        assert.ok(crosses(a, b));
        const [p1, p2] = match.prices;
        assert.ok(p1 > 0n && p2 > 0n);
        // Uniform clearing prices satisfy both limits, in the contract's integer form.
        assert.ok(a.sellAmount * p1 >= a.buyAmount * p2, 'A limit');
        assert.ok(b.sellAmount * p2 >= b.buyAmount * p1, 'B limit');
        const { flows, net } = settleModel(match); // throws on over-fill or a limit the contract refuses
        // Exactly what the rules announced, and nothing left for the contract to pay from its own balance.
        match.trades.forEach((t, i) => {
          assert.equal(flows[i].receives, t.bought);
          assert.equal(flows[i].pays, t.sold + t.fee);
          assert.ok(t.sold > 0n && t.bought > 0n);
          if (t.order.available !== undefined) assert.ok(flows[i].pays <= t.order.available, 'within what the owner can spend');
        });
        assert.equal(match.trades[0].sold, match.trades[1].bought);
        assert.equal(match.trades[1].sold, match.trades[0].bought);
        for (const [token, value] of net) assert.ok(value >= 0n, `the contract would pay ${-value} of ${token} it does not hold`);
      }),
      { numRuns: 3000 },
    );
  });

  it('an order another order covers is filled completely, whatever the kinds and fill rules', () => {
    fc.assert(
      fc.property(orderArb(T1, T2), fc.constantFrom('sell' as const, 'buy' as const), fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 6n }), (a0, kind, partiallyFillable, give) => {
        const a = { ...a0, executed: 0n, available: undefined, feeAmount: 0n };
        // B's limit is at least as good as A's, and its amount covers A's: a sell order giving exactly what A
        // buys for at most what A sells, or a buy order taking exactly what A sells for at least what A buys.
        const extra = give > a.sellAmount - 1n ? a.sellAmount - 1n : give;
        const b: SolverOrder = {
          uid: '0xb',
          sellToken: T2,
          buyToken: T1,
          sellAmount: kind === 'sell' ? a.buyAmount : a.buyAmount + give,
          buyAmount: kind === 'sell' ? a.sellAmount - extra : a.sellAmount,
          feeAmount: 0n,
          kind,
          partiallyFillable,
          executed: 0n,
        };
        const match = matchPair(a, b);
        assert.ok(match, 'a covered order is matched');
        const t = match.trades[0];
        if (a.kind === 'sell') assert.equal(t.sold, a.sellAmount);
        else assert.equal(t.bought, a.buyAmount);
      }),
      { numRuns: 2000 },
    );
  });

  it('orders whose limits do not cross, on the same side, or without funds are never matched', () => {
    fc.assert(
      fc.property(orderArb(T1, T2), orderArb(T2, T1), orderArb(T1, T2), (a, b, same) => {
        if (!crosses(a, b)) assert.equal(matchPair(a, b), undefined);
        assert.equal(matchPair(a, same), undefined);
        assert.equal(matchPair(a, { ...b, sellToken: T3 }), undefined);
        assert.equal(matchPair({ ...a, available: 0n }, b), undefined);
      }),
    );
  });

  it('a fill-or-kill order already executed or a partially fillable one fully executed takes no part', () => {
    const a: SolverOrder = { uid: '0xa', sellToken: T1, buyToken: T2, sellAmount: 10n, buyAmount: 9n, feeAmount: 0n, kind: 'sell', partiallyFillable: true, executed: 0n };
    const b: SolverOrder = { uid: '0xb', sellToken: T2, buyToken: T1, sellAmount: 10n, buyAmount: 9n, feeAmount: 0n, kind: 'sell', partiallyFillable: false, executed: 0n };
    assert.ok(matchPair(a, b));
    assert.equal(matchPair({ ...a, executed: 10n }, b), undefined);
    assert.equal(matchPair(a, { ...b, executed: 1n }), undefined);
    // Partially filled before: only the rest trades.
    const rest = matchPair({ ...a, executed: 4n }, { ...b, sellAmount: 100n, buyAmount: 90n, partiallyFillable: true });
    assert.equal(rest?.trades[0].sold, 6n);
  });

  it('crossingPairs tries the best prices first, each pair once, within its bound', () => {
    const order = (uid: string, sellToken: string, buyToken: string, sellAmount: bigint, buyAmount: bigint): SolverOrder => ({
      uid, sellToken, buyToken, sellAmount, buyAmount, feeAmount: 0n, kind: 'sell', partiallyFillable: true, executed: 0n,
    });
    const orders = [
      order('ask-dear', T1, T2, 10n, 12n), // wants 1.2 T2 per T1
      order('ask-cheap', T1, T2, 10n, 8n), // wants 0.8
      order('bid-low', T2, T1, 9n, 10n), // gives 0.9 T2 per T1
      order('bid-high', T2, T1, 11n, 10n), // gives 1.1
      order('other', T3, T1, 1n, 1n),
    ];
    const pairs = crossingPairs(orders, 10).map(([a, b]) => `${a.uid}+${b.uid}`);
    assert.deepEqual(pairs, ['ask-cheap+bid-high', 'ask-cheap+bid-low']);
    assert.deepEqual(crossingPairs(orders, 1).map(([a, b]) => `${a.uid}+${b.uid}`), ['ask-cheap+bid-high']);
    fc.assert(
      fc.property(fc.array(fc.oneof(orderArb(T1, T2), orderArb(T2, T1)), { maxLength: 30 }), fc.integer({ min: 0, max: 50 }), (list, bound) => {
        const found = crossingPairs(list, bound);
        assert.ok(found.length <= bound);
        for (const [a, b] of found) assert.ok(crosses(a, b));
        // Every executable crossing pair is found when the bound allows it.
        const all = list
          .filter((a) => a.sellToken === T1 && executable(a))
          .flatMap((a) => list.filter((b) => b.sellToken === T2 && executable(b) && crosses(a, b)));
        assert.equal(found.length, Math.min(bound, all.length));
      }),
    );
  });
});

describe('dev solver backoff', () => {
  it('leaves a failing pair alone twice as long after each failure, up to the ceiling, and forgets pairs that left', () => {
    const backoff = new Backoff(1000, 5000, 2);
    assert.equal(backoff.blocked('a+b', 0), false);
    assert.equal(backoff.failed('a+b', 0), 1000);
    assert.equal(backoff.blocked('a+b', 999), true);
    assert.equal(backoff.blocked('a+b', 1000), false);
    assert.equal(backoff.failed('a+b', 1000), 2000);
    assert.equal(backoff.failed('a+b', 3000), 4000);
    assert.equal(backoff.failed('a+b', 7000), 5000);
    backoff.failed('c+d', 0);
    backoff.failed('e+f', 0);
    assert.equal(backoff.size, 2, 'bounded: the oldest entry went');
    assert.equal(backoff.blocked('a+b', 7001), false);
    backoff.prune((key) => key !== 'c+d');
    assert.equal(backoff.blocked('c+d', 1), false);
    assert.equal(backoff.blocked('e+f', 1), true);
  });
});

describe('dev solver configuration', () => {
  it('is on by default, DEV_SOLVER=off turns it off, and its bound is checked', () => {
    assert.equal(loadConfig({}).orderbook.devSolver, true);
    assert.equal(loadConfig({}).orderbook.devSolverMaxOrders, 100);
    assert.equal(loadConfig({ DEV_SOLVER: 'off' }).orderbook.devSolver, false);
    assert.equal(loadConfig({ DEV_SOLVER_MAX_ORDERS: '20' }).orderbook.devSolverMaxOrders, 20);
    assert.throws(() => loadConfig({ DEV_SOLVER_MAX_ORDERS: '1' }), ConfigError);
    assert.throws(() => loadConfig({ DEV_SOLVER: 'maybe' }), ConfigError);
  });
});
