/**
 * Chain facts other than trades, end to end on the embedded anvil: an owner's on-chain invalidateOrder,
 * presign orders that follow their PreSignature events, and eip1271 orders of a real contract owner.
 */
import assert from 'node:assert/strict';
import { MaxUint256 } from 'ethers';
import type { Order } from '../../../src/generated/orderbook/order.js';
import { domainSeparator, orderDigest, packOrderUid } from '../../../src/orderbook/domain/eip712.js';
import { orderCreation, orderData } from '../../support/orders.js';
import {
  deployEip1271Wallet,
  eip1271Wallet,
  invalidateOrder,
  mined,
  setPreSignature,
  testToken,
} from '../../support/solver.js';
import {
  DEV_TOKEN_ADDRESSES as T,
  e18,
  eventually,
  signed,
  solvableUids,
  startOnchainBook,
  type OnchainBook,
} from '../../support/onchain.js';

describe('order book on chain: invalidation, presign and eip1271 orders', function () {
  this.timeout(120_000);
  let book: OnchainBook;

  before(async () => {
    book = await startOnchainBook();
  });
  after(() => book?.stop());

  it("an owner's on-chain invalidateOrder makes the order invalidated and takes it out of solvable_orders", async () => {
    const erin = await book.fundedTrader(T.TKA, e18(10));
    const placed = await signed(erin, book.domain, { sellToken: T.TKA, buyToken: T.TKB, sellAmount: e18(10), buyAmount: e18(9) });
    await book.place(placed);
    assert.ok((await solvableUids(book)).includes(placed.uid));

    await invalidateOrder(book.settlement, erin, placed.uid);
    await book.indexed();

    const after = await eventually<Order>(book, `/orders/${placed.uid}`, (o) => o.invalidated, 'the order invalidated');
    assert.equal(after.status, 'cancelled');
    assert.ok(!(await solvableUids(book)).includes(placed.uid));
    assert.deepEqual((await book.get(`/orders?owner=${erin.address}`)).json, [], 'hidden from GET /orders by default');
    const listed = (await book.get(`/orders?owner=${erin.address}&includeInvalidated=true`)).json as Order[];
    assert.deepEqual(listed.map((o) => [o.uid, o.status, o.invalidated]), [[placed.uid, 'cancelled', true]]);
    const events = (await book.get(`/orders/${placed.uid}/events`)).json as { type: string }[];
    assert.deepEqual(events.map((e) => e.type), ['OrderCreated', 'OrderInvalidated']);
  });

  it('a presign order is pending until setPreSignature(uid, true), solvable then, and leaves after false', async () => {
    const frank = await book.fundedTrader(T.TKA, e18(20));
    const params = { sellToken: T.TKA, buyToken: T.TKB, sellAmount: e18(20), buyAmount: e18(19) };
    const data = orderData(params);
    const body = { ...orderCreation(data, 'presign', '0x'), from: frank.address.toLowerCase() };
    const uid = (await book.post('/orders', body)).json as string;
    assert.match(uid, /^0x[0-9a-f]{112}$/);

    assert.equal((await book.order(uid)).status, 'presignaturePending');
    assert.ok(!(await solvableUids(book)).includes(uid));

    await setPreSignature(book.settlement, frank, uid, true);
    await book.indexed();
    await eventually<Order[]>(book, '/solvable_orders', (list) => list.some((o) => o.uid === uid), 'the presigned order solvable');
    assert.equal((await book.order(uid)).status, 'open');

    await setPreSignature(book.settlement, frank, uid, false);
    await book.indexed();
    await eventually<Order[]>(book, '/solvable_orders', (list) => !list.some((o) => o.uid === uid), 'the revoked order out');
    assert.equal((await book.order(uid)).status, 'presignaturePending');
    const events = (await book.get(`/orders/${uid}/events`)).json as { type: string }[];
    assert.deepEqual(events.map((e) => e.type), ['OrderCreated', 'OrderPresigned', 'PresignatureRevoked']);
  });

  it('a presign order POSTed after its presignature is on chain is solvable at once', async () => {
    const gina = await book.fundedTrader(T.TKB, e18(5));
    const data = orderData({ sellToken: T.TKB, buyToken: T.TKA, sellAmount: e18(5), buyAmount: e18(5) });
    const uid = packOrderUid(orderDigest(domainSeparator(book.domain), data), gina.address, data.validTo);
    await setPreSignature(book.settlement, gina, uid, true);
    await book.indexed();
    const placed = await book.post('/orders', { ...orderCreation(data, 'presign', gina.address), from: gina.address });
    assert.equal(placed.status, 201, placed.text);
    assert.equal(placed.json, uid);
    assert.equal((await book.order(uid)).status, 'open');
    await eventually<Order[]>(book, '/solvable_orders', (list) => list.some((o) => o.uid === uid), 'the order solvable');
  });

  it('an eip1271 order of a contract owner is accepted when the contract approves its digest, rejected when not', async () => {
    const owner = await book.trader();
    const wallet = await deployEip1271Wallet(owner);
    await mined(testToken(T.TKA, owner).mint(wallet, e18(30)));
    await mined(eip1271Wallet(wallet, owner).approveToken(T.TKA, book.vaultRelayer, MaxUint256));

    const data = orderData({ sellToken: T.TKA, buyToken: T.TKB, sellAmount: e18(10), buyAmount: e18(10) });
    const body = { ...orderCreation(data, 'eip1271', '0x'), from: wallet };
    const digest = orderDigest(domainSeparator(book.domain), data);

    const rejected = await book.post('/orders', body);
    assert.equal(rejected.status, 400);
    assert.equal(rejected.json.errorType, 'InvalidEip1271Signature');
    assert.equal((await book.get(`/orders?owner=${wallet}`)).json.length, 0, 'a rejected order is not stored');

    await mined(eip1271Wallet(wallet, owner).approveHash(digest, true));
    const accepted = await book.post('/orders', body);
    assert.equal(accepted.status, 201, accepted.text);
    const shown = await book.order(accepted.json);
    assert.deepEqual([shown.owner, shown.signingScheme, shown.status], [wallet, 'eip1271', 'open']);
    await eventually<Order[]>(
      book,
      '/solvable_orders',
      (list) => list.some((o) => o.uid === accepted.json && o.availableBalance === e18(30).toString()),
      'the eip1271 order solvable with the contract owner balance',
    );

    // A contract that signs with its owner's key accepts that signature too, and no other.
    const other = orderData({ sellToken: T.TKA, buyToken: T.TKB, sellAmount: e18(5), buyAmount: e18(5) });
    const otherDigest = orderDigest(domainSeparator(book.domain), other);
    const byOwner = owner.signingKey.sign(otherDigest).serialized;
    const byStranger = (await book.trader()).signingKey.sign(otherDigest).serialized;
    const strangerAnswer = await book.post('/orders', { ...orderCreation(other, 'eip1271', byStranger), from: wallet });
    assert.equal(strangerAnswer.json.errorType, 'InvalidEip1271Signature');
    const ownerAnswer = await book.post('/orders', { ...orderCreation(other, 'eip1271', byOwner), from: wallet });
    assert.equal(ownerAnswer.status, 201, ownerAnswer.text);
  });
});
