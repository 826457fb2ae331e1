/**
 * The on-chain signing schemes through the HTTP API: an eip1271 order of a smart-contract wallet (the
 * book asks the wallet's isValidSignature on the chain), and a presign order, which waits for the
 * settlement contract's PreSignature event before it is solvable. Neither can be cancelled off-chain.
 */
import assert from 'node:assert/strict';
import { signCancellation, signOrder, orderData, orderCreation, type OrderParams } from '../../support/orders.js';
import { caughtUp, deleteOrder, get, postOrder, startOrderbookService, TOKENS, type OrderbookHarness } from '../../support/orderbook.js';
import { deployEip1271Wallet, eip1271Wallet, mined, setPreSignature, testToken } from '../../support/solver.js';
import { orderDigest, packOrderUid, domainSeparator } from '../../../src/orderbook/domain/eip712.js';
import { e18 } from '../../support/onchain.js';

const { TKA, TKB } = TOKENS;

describe('order book API: eip1271 and presign orders', function () {
  this.timeout(120_000);
  let h: OrderbookHarness;

  before(async () => {
    h = await startOrderbookService();
  });
  after(() => h?.stop());

  const solvableUids = async () => ((await get(h.api, '/solvable_orders')).json as { uid: string }[]).map((o) => o.uid);
  const params = (sellAmount: bigint): OrderParams => ({ sellToken: TKA, buyToken: TKB, sellAmount, buyAmount: e18(1) });

  it('accepts an eip1271 order the wallet contract approves, and refuses one it does not', async () => {
    const owner = await h.trader();
    const wallet = await deployEip1271Wallet(owner);
    await mined(testToken(TKA, owner).mint(wallet, e18(100)));
    await mined(eip1271Wallet(wallet, owner).approveToken(TKA, h.vaultRelayer, e18(100)));

    // The wallet accepts its owner's ECDSA signature of the order digest, which signTypedData gives.
    const signed = await signOrder(owner, h.domain, params(e18(10)));
    const body = { ...signed.body, signingScheme: 'eip1271' as const, from: wallet };
    const uid = packOrderUid(orderDigest(domainSeparator(h.domain), orderData(params(e18(10)))), wallet, signed.body.validTo);
    const res = await postOrder(h.api, body);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json, uid);
    const order = (await get(h.api, `/orders/${uid}`)).json;
    assert.equal(order.owner, wallet);
    assert.equal(order.signingScheme, 'eip1271');
    assert.equal(order.status, 'open');
    assert.equal(order.availableBalance, e18(100).toString());
    assert.ok((await solvableUids()).includes(uid));

    // Signed by someone else: the wallet says no.
    const stranger = await h.trader();
    const forged = await signOrder(stranger, h.domain, params(e18(11)));
    const refused = await postOrder(h.api, { ...forged.body, signingScheme: 'eip1271', from: wallet });
    assert.equal(refused.status, 400);
    assert.equal(refused.json.errorType, 'InvalidEip1271Signature');
    // An address without code cannot sign either.
    const noContract = await postOrder(h.api, { ...forged.body, signingScheme: 'eip1271', from: stranger.address });
    assert.equal(noContract.json.errorType, 'InvalidEip1271Signature');

    const cancel = await deleteOrder(h.api, uid, await signCancellation(owner, h.domain, uid));
    assert.equal(cancel.status, 400);
    assert.equal(cancel.json.errorType, 'OnChainOrder');
  });

  it('keeps a presign order pending until the PreSignature event, then solvable until it is revoked', async () => {
    const owner = await h.trader({ [TKA]: e18(100) });
    const data = orderData(params(e18(5)));
    const uid = packOrderUid(orderDigest(domainSeparator(h.domain), data), owner.address.toLowerCase(), data.validTo);
    const body = orderCreation(data, 'presign', owner.address);
    const res = await postOrder(h.api, body);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json, uid);
    assert.equal((await get(h.api, `/orders/${uid}`)).json.status, 'presignaturePending');
    assert.ok(!(await solvableUids()).includes(uid));
    // Listed by default: a pending presignature is not an invalidated order.
    assert.deepEqual((await get(h.api, `/orders?owner=${owner.address}`)).json.map((o: { uid: string }) => o.uid), [uid]);

    await setPreSignature(h.settlement, owner, uid, true);
    await caughtUp(h);
    assert.equal((await get(h.api, `/orders/${uid}`)).json.status, 'open');
    assert.ok((await solvableUids()).includes(uid));

    await setPreSignature(h.settlement, owner, uid, false);
    await caughtUp(h);
    assert.equal((await get(h.api, `/orders/${uid}`)).json.status, 'presignaturePending');
    assert.ok(!(await solvableUids()).includes(uid));
    const events = (await get(h.api, `/orders/${uid}/events`)).json.map((e: { type: string }) => e.type);
    assert.deepEqual(events, ['OrderCreated', 'OrderPresigned', 'PresignatureRevoked']);

    const cancel = await deleteOrder(h.api, uid, await signCancellation(owner, h.domain, uid));
    assert.equal(cancel.json.errorType, 'OnChainOrder');
  });

  it('accepts a presign order from an empty signature with from, as current CoW clients send it', async () => {
    const owner = await h.trader({ [TKA]: e18(100) });
    const data = orderData(params(e18(6)));
    const res = await postOrder(h.api, { ...orderCreation(data, 'presign', '0x'), from: owner.address });
    assert.equal(res.status, 201, res.text);
    assert.equal((await get(h.api, `/orders/${res.json}`)).json.signature, owner.address.toLowerCase());
    // Without from, nobody is named.
    const missing = await postOrder(h.api, orderCreation(orderData(params(e18(7))), 'presign', '0x'));
    assert.equal(missing.json.errorType, 'MissingFrom');
  });
});
