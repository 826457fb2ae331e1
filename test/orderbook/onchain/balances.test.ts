/**
 * Spendable balances on the embedded anvil: min(balanceOf, allowance to the vault relayer) of the sell
 * token, read again at every new block and allocated to an owner's open orders oldest first. Blocks are
 * mined explicitly, and after the last one the test only polls: an order that must drop out (or come back)
 * "within two blocks" has to do so without any further block.
 */
import assert from 'node:assert/strict';
import { MaxUint256 } from 'ethers';
import type { Order } from '../../../src/generated/orderbook/order.js';
import { orderCreation, orderData } from '../../support/orders.js';
import { fundTrader, mined, setPreSignature, testToken } from '../../support/solver.js';
import {
  DEV_TOKEN_ADDRESSES as T,
  e18,
  eventually,
  signed,
  startOnchainBook,
  type OnchainBook,
} from '../../support/onchain.js';

describe('order book on chain: balances and solvable orders', function () {
  this.timeout(120_000);
  let book: OnchainBook;

  before(async () => {
    // Orders may expire soon after creation here, so that a test can watch one expire.
    book = await startOnchainBook({ MIN_VALID_TO_SECONDS: '2' });
  });
  after(() => book?.stop());

  /** Mines `count` empty blocks, one evm_mine each. */
  async function mine(count: number): Promise<void> {
    for (let i = 0; i < count; i++) await book.control('evm_mine');
  }

  const solvable = (uid: string, balance?: bigint) => (list: Order[]) =>
    list.some((o) => o.uid === uid && (balance === undefined || o.availableBalance === balance.toString()));
  const notSolvable = (uid: string) => (list: Order[]) => !list.some((o) => o.uid === uid);

  it('a fill-or-kill order drops out within two blocks when its owner cannot fund it, and comes back when funded', async () => {
    const grace = await book.fundedTrader(T.TKA, e18(10), MaxUint256);
    const placed = await signed(grace, book.domain, { sellToken: T.TKA, buyToken: T.TKB, sellAmount: e18(8), buyAmount: e18(8), feeAmount: e18(2) });
    await book.place(placed);
    await eventually(book, '/solvable_orders', solvable(placed.uid, e18(10)), 'the funded order solvable');
    const elsewhere = (await book.trader()).address;

    // The balance falls below sellAmount + feeAmount: transferred away (one block), then two more blocks at most.
    await mined(testToken(T.TKA, grace).transfer(elsewhere, e18(1)));
    await mine(2);
    await eventually(book, '/solvable_orders', notSolvable(placed.uid), 'the order out after the transfer');

    // GET /orders hides it unless includeInsufficientBalance; availableBalance is the spendable amount.
    assert.deepEqual((await book.get(`/orders?owner=${grace.address}`)).json, []);
    const listed = (await book.get(`/orders?owner=${grace.address}&includeInsufficientBalance=true`)).json as Order[];
    assert.deepEqual(listed.map((o) => [o.uid, o.status, o.availableBalance]), [[placed.uid, 'open', e18(9).toString()]]);
    assert.equal((await book.order(placed.uid)).availableBalance, e18(9).toString());

    // Funded again.
    await mined(testToken(T.TKA, grace).mint(grace.address, e18(1)));
    await mine(2);
    await eventually(book, '/solvable_orders', solvable(placed.uid, e18(10)), 'the order back when funded');
    assert.deepEqual(((await book.get(`/orders?owner=${grace.address}`)).json as Order[]).map((o) => o.uid), [placed.uid]);

    // The allowance to the vault relayer counts as much as the balance.
    await mined(testToken(T.TKA, grace).approve(book.vaultRelayer, e18(9)));
    await mine(2);
    await eventually(book, '/solvable_orders', notSolvable(placed.uid), 'the order out after the allowance went down');
    assert.equal((await book.order(placed.uid)).availableBalance, e18(9).toString());
    await mined(testToken(T.TKA, grace).approve(book.vaultRelayer, MaxUint256));
    await mine(2);
    await eventually(book, '/solvable_orders', solvable(placed.uid, e18(10)), 'the order back with the allowance');
  });

  it("allocates an owner's spendable amount to the oldest orders first", async () => {
    const heidi = await book.fundedTrader(T.TKB, e18(10), MaxUint256);
    const first = await signed(heidi, book.domain, { sellToken: T.TKB, buyToken: T.TKA, sellAmount: e18(6), buyAmount: e18(6) });
    const second = await signed(heidi, book.domain, { sellToken: T.TKB, buyToken: T.TKA, sellAmount: e18(6), buyAmount: e18(5) });
    const partial = await signed(heidi, book.domain, { sellToken: T.TKB, buyToken: T.TKA, sellAmount: e18(6), buyAmount: e18(4), partiallyFillable: true });
    // Each fits the whole balance alone, so each is accepted.
    for (const placed of [first, second, partial]) await book.place(placed);

    const list = await eventually<Order[]>(book, '/solvable_orders', solvable(first.uid, e18(10)), 'the oldest order solvable');
    // 10 funds the first (6); the second (6) does not fit in the 4 left; the partially fillable one takes them.
    assert.ok(notSolvable(second.uid)(list), 'the younger fill-or-kill order does not fit');
    assert.ok(solvable(partial.uid, e18(10))(list), 'a partially fillable order needs only a non-zero amount left');
    const all = (await book.get(`/orders?owner=${heidi.address}&includeInsufficientBalance=true`)).json as Order[];
    assert.deepEqual(all.map((o) => o.uid), [first.uid, second.uid, partial.uid]);
    assert.ok(all.every((o) => o.availableBalance === e18(10).toString()), 'availableBalance is the owner amount, the same for each order');
    assert.deepEqual(((await book.get(`/orders?owner=${heidi.address}`)).json as Order[]).map((o) => o.uid), [first.uid, partial.uid]);
  });

  it('refuses an unfunded fill-or-kill order (InsufficientAllowance when only the allowance is short) and a partially fillable one with nothing', async () => {
    const ivan = await book.fundedTrader(T.TKA, e18(5), e18(3));
    const tooBig = await signed(ivan, book.domain, { sellToken: T.TKA, buyToken: T.TKB, sellAmount: e18(3) + 1n, buyAmount: e18(3) });
    const res = await book.post('/orders', tooBig.body);
    assert.equal(res.status, 400);
    assert.equal(res.json.errorType, 'InsufficientAllowance', 'the balance (5) funds it, the allowance (3) does not');
    assert.match(res.json.description, new RegExp(`${e18(3)}`), 'names the allowance');
    const tooBigForTheBalance = await signed(ivan, book.domain, { sellToken: T.TKA, buyToken: T.TKB, sellAmount: e18(5) + 1n, buyAmount: e18(3) });
    const short = await book.post('/orders', tooBigForTheBalance.body);
    assert.deepEqual([short.status, short.json.errorType], [400, 'InsufficientBalance'], 'both short: the balance is named, as CoW does');
    assert.equal((await book.get(`/orders/${tooBig.uid}`)).status, 404, 'nothing stored');

    const exact = await signed(ivan, book.domain, { sellToken: T.TKA, buyToken: T.TKB, sellAmount: e18(3), buyAmount: e18(3) });
    await book.place(exact);

    const nobody = await book.trader();
    const partial = await signed(nobody, book.domain, { sellToken: T.TKA, buyToken: T.TKB, sellAmount: e18(1), buyAmount: e18(1), partiallyFillable: true });
    const refused = await book.post('/orders', partial.body);
    assert.deepEqual([refused.status, refused.json.errorType], [400, 'InsufficientBalance']);
  });

  it('a presign order of an unfunded owner does not become solvable when presigned, and does once funded', async () => {
    const judy = await book.trader();
    const data = orderData({ sellToken: T.TKA, buyToken: T.TKB, sellAmount: e18(2), buyAmount: e18(2) });
    const created = await book.post('/orders', { ...orderCreation(data, 'presign', '0x'), from: judy.address });
    assert.equal(created.status, 201, 'presign orders are not balance-checked: the owner may fund them later');
    const uid = created.json as string;

    await setPreSignature(book.settlement, judy, uid, true);
    await book.indexed();
    // Once its owner's amount is read (no further block needed) the order shows it, and stays out.
    const order = await eventually<Order>(book, `/orders/${uid}`, (o) => o.availableBalance === '0', 'the owner balance read');
    assert.equal(order.status, 'open');
    assert.ok(notSolvable(uid)((await book.get('/solvable_orders')).json as Order[]));

    await fundTrader(T.TKA, judy, e18(2), book.vaultRelayer);
    await mine(1);
    await eventually(book, '/solvable_orders', solvable(uid, e18(2)), 'the presigned order solvable once funded');
  });

  it('an expired order leaves solvable_orders and its owner balance is no longer read at every block', async () => {
    const zoe = await book.fundedTrader(T.TKC, 5_000000n, MaxUint256);
    const validTo = Math.floor(Date.now() / 1000) + 4;
    const placed = await signed(zoe, book.domain, { sellToken: T.TKC, buyToken: T.TKA, sellAmount: 5_000000n, buyAmount: 1n, validTo });
    await book.place(placed);
    const tracked = () => book.orderbook.chain.balances.trackedPairs.some((p) => p.owner === placed.owner && p.token === T.TKC);
    await eventually(book, '/solvable_orders', solvable(placed.uid, 5_000000n), 'the order solvable');
    assert.ok(tracked());

    await eventually(book, '/solvable_orders', notSolvable(placed.uid), 'the order expired', 15_000);
    const order = (await book.get(`/orders/${placed.uid}`)).json as Order;
    assert.deepEqual([order.status, order.availableBalance], ['expired', null]);
    assert.ok(!tracked(), 'the pair of an expired order is not tracked');
  });
});
