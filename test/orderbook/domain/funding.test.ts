import assert from 'node:assert/strict';
import { allocateFunding, remainingNeed, type FundableOrder } from '../../../src/orderbook/domain/funding.js';

const OWNER = '0x' + 'aa'.repeat(20);
const OTHER = '0x' + 'bb'.repeat(20);
const TKA = '0x' + '01'.repeat(20);
const TKB = '0x' + '02'.repeat(20);

let n = 0;
function order(partial: Partial<FundableOrder>): FundableOrder {
  return {
    uid: `order-${n++}`,
    owner: OWNER,
    sellToken: TKA,
    kind: 'sell',
    partiallyFillable: false,
    sellAmount: 100n,
    buyAmount: 100n,
    feeAmount: 0n,
    executedSellAmount: 0n,
    executedBuyAmount: 0n,
    ...partial,
  };
}

const spendableTable = (table: Record<string, bigint>) => (owner: string, token: string) => table[`${owner}:${token}`];

describe('funding allocation (pure)', () => {
  it('needs sellAmount + fee − executed (fee included) for a sell order', () => {
    assert.equal(remainingNeed(order({ sellAmount: 100n, feeAmount: 2n })), 102n);
    assert.equal(remainingNeed(order({ sellAmount: 100n, feeAmount: 2n, executedSellAmount: 51n, executedBuyAmount: 50n })), 51n);
    assert.equal(remainingNeed(order({ sellAmount: 100n, feeAmount: 2n, executedSellAmount: 102n })), 0n);
  });

  it('needs the limit pro rata to what is left to buy, rounded up, for a buy order', () => {
    const buy = { kind: 'buy' as const, sellAmount: 100n, feeAmount: 10n, buyAmount: 50n };
    assert.equal(remainingNeed(order(buy)), 110n);
    assert.equal(remainingNeed(order({ ...buy, executedBuyAmount: 25n, executedSellAmount: 40n })), 55n);
    assert.equal(remainingNeed(order({ ...buy, buyAmount: 3n, executedBuyAmount: 1n })), 74n); // ceil(110 × 2 / 3)
    assert.equal(remainingNeed(order({ ...buy, executedBuyAmount: 50n })), 0n);
  });

  it('funds fill-or-kill orders oldest first; one that does not fit is skipped and consumes nothing', () => {
    const a = order({ sellAmount: 60n });
    const b = order({ sellAmount: 50n });
    const c = order({ sellAmount: 30n });
    const d = order({ sellAmount: 11n });
    const funding = allocateFunding([a, b, c, d], spendableTable({ [`${OWNER}:${TKA}`]: 100n }));
    assert.deepEqual([a, b, c, d].map((o) => funding.get(o.uid)!.funded), [true, false, true, false]);
    assert.deepEqual([a, b, c, d].map((o) => funding.get(o.uid)!.availableBalance), [100n, 100n, 100n, 100n]);
    assert.equal(funding.get(b.uid)!.need, 50n);
  });

  it('funds a partially fillable order while anything is left, and it takes what it can', () => {
    const p = order({ partiallyFillable: true, sellAmount: 100n });
    const fok = order({ sellAmount: 1n });
    const p2 = order({ partiallyFillable: true, sellAmount: 5n });
    const funding = allocateFunding([p, fok, p2], spendableTable({ [`${OWNER}:${TKA}`]: 10n }));
    assert.deepEqual([p, fok, p2].map((o) => funding.get(o.uid)!.funded), [true, false, false]);

    const none = allocateFunding([order({ partiallyFillable: true })], spendableTable({ [`${OWNER}:${TKA}`]: 0n }));
    assert.equal([...none.values()][0].funded, false);
    // A partially fillable order that takes less than all leaves the rest to younger orders.
    const small = order({ partiallyFillable: true, sellAmount: 4n });
    const after = order({ sellAmount: 6n });
    const shared = allocateFunding([small, after], spendableTable({ [`${OWNER}:${TKA}`]: 10n }));
    assert.deepEqual([shared.get(small.uid)!.funded, shared.get(after.uid)!.funded], [true, true]);
  });

  it('keeps owners and sell tokens apart, funds executed orders, and funds with an unknown balance', () => {
    const mine = order({ sellAmount: 100n });
    const otherToken = order({ sellToken: TKB, sellAmount: 100n });
    const otherOwner = order({ owner: OTHER, sellAmount: 100n });
    const done = order({ sellAmount: 100n, executedSellAmount: 100n });
    const unknown = order({ owner: OTHER, sellToken: TKB, sellAmount: 1n });
    const funding = allocateFunding(
      [mine, otherToken, otherOwner, done, unknown],
      spendableTable({ [`${OWNER}:${TKA}`]: 100n, [`${OWNER}:${TKB}`]: 99n, [`${OTHER}:${TKA}`]: 100n }),
    );
    assert.deepEqual(
      [mine, otherToken, otherOwner, done, unknown].map((o) => funding.get(o.uid)!.funded),
      [true, false, true, true, true],
    );
    assert.equal(funding.get(otherToken.uid)!.availableBalance, 99n);
    assert.equal(funding.get(unknown.uid)!.availableBalance, null);
  });
});
