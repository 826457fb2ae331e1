/**
 * GET /api/v1/trades: trades settled by the real GPv2Settlement on the embedded chain (TestSolver), as the
 * indexer recorded them, filtered by owner and orderUid, oldest first, paginated with offset (default 0)
 * and limit (default 100, at most 1000).
 */
import assert from 'node:assert/strict';
import { type TransactionReceipt, type Wallet } from 'ethers';
import { signOrder, type SignedOrderCreation } from '../../support/orders.js';
import { get, postOrder, settle, startOrderbookService, TOKENS, type OrderbookHarness } from '../../support/orderbook.js';
import { e18 } from '../../support/onchain.js';

const { TKA, TKB } = TOKENS;

interface ApiTrade {
  blockNumber: number;
  logIndex: number;
  orderUid: string;
  owner: string;
  sellToken: string;
  buyToken: string;
  sellAmount: string;
  sellAmountBeforeFees: string;
  buyAmount: string;
  transactionHash: string;
}

describe('order book API: trades', function () {
  this.timeout(120_000);
  let h: OrderbookHarness;
  let alice: Wallet;
  let bob: Wallet;
  /** alice's 101 orders, settled in one transaction, and bob's 2 orders, settled in two. */
  let aliceOrders: SignedOrderCreation[];
  let bobOrders: SignedOrderCreation[];
  let aliceReceipt: TransactionReceipt;
  const bobReceipts: TransactionReceipt[] = [];

  const trades = async (query: string): Promise<ApiTrade[]> => {
    const res = await get(h.api, `/trades${query}`);
    assert.equal(res.status, 200, res.text);
    return res.json;
  };

  before(async () => {
    // Fees of a few atoms (TKA has a built-in price): with no gas per trade the minimal fee is 0.
    h = await startOrderbookService({ GAS_PER_TRADE: '0' });
    alice = await h.trader({ [TKA]: e18(1000) });
    bob = await h.trader({ [TKA]: e18(1000) });
    const place = async (trader: Wallet, i: number, fee: bigint) => {
      const signed = await signOrder(trader, h.domain, {
        sellToken: TKA,
        buyToken: TKB,
        sellAmount: e18(1),
        buyAmount: e18(1),
        feeAmount: fee,
        appData: '0x' + i.toString(16).padStart(64, '0'),
      });
      const res = await postOrder(h.api, signed.body);
      assert.equal(res.status, 201, res.text);
      return signed;
    };
    bobOrders = [await place(bob, 0, 10n), await place(bob, 1, 20n)];
    aliceOrders = [];
    for (let i = 0; i < 101; i++) aliceOrders.push(await place(alice, i, 0n));
    bobReceipts.push(await settle(h, [{ body: bobOrders[0].body }]));
    aliceReceipt = await settle(h, aliceOrders.map((o) => ({ body: o.body })), { [TKA]: 1n, [TKB]: 1n });
    bobReceipts.push(await settle(h, [{ body: bobOrders[1].body }]));
  });
  after(() => h?.stop());

  it('records each Trade log in the wire shape, fee included in sellAmount', async () => {
    const [first, second] = await trades(`?owner=${bob.address}`);
    assert.deepEqual(Object.keys(first).sort(), [
      'blockNumber', 'buyAmount', 'buyToken', 'logIndex', 'orderUid', 'owner', 'sellAmount', 'sellAmountBeforeFees', 'sellToken', 'transactionHash', 'txHash',
    ]);
    assert.deepEqual(
      { ...first, logIndex: 0 },
      {
        blockNumber: bobReceipts[0].blockNumber,
        logIndex: 0,
        orderUid: bobOrders[0].uid,
        owner: bob.address.toLowerCase(),
        sellToken: TKA,
        buyToken: TKB,
        sellAmount: (e18(1) + 10n).toString(),
        sellAmountBeforeFees: e18(1).toString(),
        buyAmount: e18(1).toString(),
        transactionHash: bobReceipts[0].hash.toLowerCase(),
        txHash: bobReceipts[0].hash.toLowerCase(),
      },
    );
    assert.equal(second.orderUid, bobOrders[1].uid);
    assert.equal(second.blockNumber, bobReceipts[1].blockNumber);
    assert.equal(second.sellAmount, (e18(1) + 20n).toString());
  });

  it('filters by owner and by orderUid', async () => {
    assert.deepEqual((await trades(`?owner=${bob.address.toLowerCase()}`)).map((t) => t.orderUid), bobOrders.map((o) => o.uid));
    const one = await trades(`?orderUid=${aliceOrders[7].uid}`);
    assert.equal(one.length, 1);
    assert.equal(one[0].orderUid, aliceOrders[7].uid);
    assert.equal(one[0].owner, alice.address.toLowerCase());
    assert.deepEqual(await trades(`?owner=${alice.address}&orderUid=${bobOrders[0].uid}`), []);
    assert.deepEqual(await trades(`?orderUid=${'0x' + '00'.repeat(56)}`), []);
  });

  it('pages oldest first (block, then log index): 100 by default, up to 1000 with limit, from offset', async () => {
    const everything = await trades('?limit=1000');
    assert.equal(everything.length, 103);
    for (let i = 1; i < everything.length; i++) {
      const [a, b] = [everything[i - 1], everything[i]];
      assert.ok(a.blockNumber < b.blockNumber || (a.blockNumber === b.blockNumber && a.logIndex < b.logIndex), `trade ${i} in order`);
    }
    assert.equal(everything[0].orderUid, bobOrders[0].uid);
    assert.equal(everything[102].orderUid, bobOrders[1].uid);
    assert.ok(everything.slice(1, 102).every((t) => t.transactionHash === aliceReceipt.hash.toLowerCase()));

    assert.deepEqual(await trades(''), everything.slice(0, 100), 'default limit 100, offset 0');
    assert.deepEqual(await trades('?offset=100'), everything.slice(100));
    const byAlice = await trades(`?owner=${alice.address}`);
    assert.equal(byAlice.length, 100);
    assert.deepEqual(await trades(`?owner=${alice.address}&offset=100`), everything.slice(101, 102));
    const pages: ApiTrade[] = [];
    for (let offset = 0; offset < 103; offset += 10) pages.push(...(await trades(`?limit=10&offset=${offset}`)));
    assert.deepEqual(pages, everything);
    assert.deepEqual(await trades('?offset=103'), []);
    assert.deepEqual(await trades('?limit=1&offset=5'), [everything[5]]);
  });

  it('shows the trades as executed amounts of their orders', async () => {
    const res = await get(h.api, `/orders/${aliceOrders[0].uid}`);
    assert.equal(res.json.status, 'fulfilled');
    assert.equal(res.json.executedBuyAmount, e18(1).toString());
  });
});
