/**
 * The pure rules of today's CoW API (domain/quote.ts, domain/app-data.ts, the bulk cancellation digest):
 * quote amounts and their rounding, the order class, app data resolution and the order body's
 * normalisation to the seed's OrderCreation.
 */
import assert from 'node:assert/strict';
import { TypedDataEncoder, Wallet, keccak256, toUtf8Bytes } from 'ethers';
import { OrderbookError } from '../../../src/orderbook/domain/errors.js';
import { orderClass, quoteAmounts, quoteSide, quoteValidTo } from '../../../src/orderbook/domain/quote.js';
import { MAX_APP_DATA_BYTES, normalizeOrderBody, resolveAppData } from '../../../src/orderbook/domain/app-data.js';
import { CANCELLATIONS_TYPES, cancellationsDigest, domainSeparator, gpv2Domain } from '../../../src/orderbook/domain/eip712.js';
import { verifyCancellations } from '../../../src/orderbook/domain/cancellation.js';

function refusedWith(fn: () => unknown, errorType: string): void {
  assert.throws(fn, (err: unknown) => err instanceof OrderbookError && err.errorType === errorType);
}

const request = (over: Record<string, unknown>) => ({ sellToken: '0x' + '01'.repeat(20), buyToken: '0x' + '02'.repeat(20), from: '0x' + '03'.repeat(20), kind: 'sell' as const, ...over });

describe("order book domain: today's CoW API", () => {
  const one = { numerator: 1n, denominator: 1n };
  const half = { numerator: 1n, denominator: 2n };

  it('prices sell quotes after the fee, rounding the buy amount down, and buy quotes rounding the sell amount up', () => {
    // fee = ceil(gasPrice 3 × gas 10 / price 1) = 30 sell atoms
    const before = quoteAmounts(quoteSide(request({ sellAmountBeforeFee: '1030' })), one, half, 3n, 10n);
    assert.deepEqual(before, { sellAmount: 1000n, buyAmount: 2000n, feeAmount: 30n });
    const after = quoteAmounts(quoteSide(request({ sellAmountAfterFee: '7' })), half, one, 3n, 10n);
    assert.deepEqual(after, { sellAmount: 7n, buyAmount: 3n, feeAmount: 60n }, '7 × 0.5 = 3.5 → 3; fee 30 / 0.5');
    const buy = quoteAmounts(quoteSide(request({ kind: 'buy', buyAmountAfterFee: '3' })), { numerator: 2n, denominator: 1n }, one, 1n, 1n);
    assert.deepEqual(buy, { sellAmount: 2n, buyAmount: 3n, feeAmount: 1n }, '3 / 2 = 1.5 → 2');
    refusedWith(() => quoteAmounts(quoteSide(request({ sellAmountBeforeFee: '30' })), one, one, 3n, 10n), 'SellAmountDoesNotCoverFee');
  });

  it('takes exactly one amount matching the kind, and validTo or validFor', () => {
    refusedWith(() => quoteSide(request({})), 'InvalidOrderData');
    refusedWith(() => quoteSide(request({ sellAmountBeforeFee: '1', sellAmountAfterFee: '1' })), 'InvalidOrderData');
    refusedWith(() => quoteSide(request({ buyAmountAfterFee: '1' })), 'InvalidOrderData');
    refusedWith(() => quoteSide(request({ kind: 'buy', sellAmountAfterFee: '1' })), 'InvalidOrderData');
    refusedWith(() => quoteSide(request({ sellAmountAfterFee: '0' })), 'ZeroAmount');
    assert.equal(quoteValidTo({ validFor: 60 }, 1000), 1060);
    assert.equal(quoteValidTo({ validTo: 5000 }, 1000), 5000);
    assert.equal(quoteValidTo({}, 1000), 2800);
    assert.equal(quoteValidTo({ validFor: 0xffffffff }, 1000), 0xffffffff);
    refusedWith(() => quoteValidTo({ validTo: 5000, validFor: 60 }, 1000), 'InvalidOrderData');
  });

  it('classes an order market when its limit is within its quote, limit otherwise or without a quote', () => {
    const quote = { sellAmount: 100n, buyAmount: 200n };
    assert.equal(orderClass({ sellAmount: 100n, buyAmount: 200n, feeAmount: 0n }, quote), 'market');
    assert.equal(orderClass({ sellAmount: 100n, buyAmount: 199n, feeAmount: 0n }, quote), 'market');
    assert.equal(orderClass({ sellAmount: 100n, buyAmount: 201n, feeAmount: 0n }, quote), 'limit');
    assert.equal(orderClass({ sellAmount: 100n, buyAmount: 201n, feeAmount: 1n }, quote), 'market', 'the signed fee counts');
    assert.equal(orderClass({ sellAmount: 100n, buyAmount: 1n, feeAmount: 0n }, null), 'limit');
  });

  it('resolves appData as the document or the hash and checks appDataHash', () => {
    const doc = '{"appCode":"x"}';
    const hash = keccak256(toUtf8Bytes(doc));
    assert.deepEqual(resolveAppData(doc, undefined), { hash, full: doc });
    assert.deepEqual(resolveAppData(doc, hash.toUpperCase().replace('0X', '0x')), { hash, full: doc });
    assert.deepEqual(resolveAppData(hash.toUpperCase().replace('0X', '0x'), undefined), { hash, full: null });
    assert.equal(resolveAppData('0x12', undefined), null, 'left for the schema to refuse');
    refusedWith(() => resolveAppData(doc, '0x' + '00'.repeat(32)), 'AppDataHashMismatch');
    refusedWith(() => resolveAppData(hash, '0x' + '00'.repeat(32)), 'AppDataHashMismatch');
    refusedWith(() => resolveAppData(doc, 'nothex'), 'InvalidOrderData');
    refusedWith(() => resolveAppData('not json', undefined), 'InvalidAppData');
    refusedWith(() => resolveAppData('[1]', undefined), 'InvalidAppData');
    refusedWith(() => resolveAppData(JSON.stringify({ a: 'x'.repeat(MAX_APP_DATA_BYTES) }), undefined), 'InvalidAppData');
  });

  it("normalises today's OrderCreation to the seed's: hash appData, unknown fields dropped, quoteId kept", () => {
    const doc = '{"appCode":"y"}';
    const normalized = normalizeOrderBody({ sellToken: 'a', appData: doc, appDataHash: keccak256(toUtf8Bytes(doc)), quoteId: 7, fullBalanceCheck: true, other: 1 });
    assert.deepEqual(normalized, { body: { sellToken: 'a', appData: keccak256(toUtf8Bytes(doc)), quoteId: 7 }, fullAppData: doc, quoteId: 7 });
    assert.deepEqual(normalizeOrderBody([1]), { body: [1], fullAppData: null, quoteId: null });
  });

  it('verifies a bulk cancellation signed over OrderCancellations(bytes[] orderUids), eip712 and ethsign', async () => {
    const wallet = Wallet.createRandom();
    const domain = gpv2Domain(1, '0x9008D19f58AAbD9eD0D60971565AA8510560ab41');
    const separator = domainSeparator(domain);
    const uids = ['0x' + '11'.repeat(56), '0x' + '22'.repeat(56)];
    assert.equal(cancellationsDigest(separator, uids), TypedDataEncoder.hash(domain, CANCELLATIONS_TYPES, { orderUids: uids }));
    const eip712 = await wallet.signTypedData(domain, CANCELLATIONS_TYPES, { orderUids: uids });
    assert.equal(verifyCancellations({ orderUids: uids, signature: eip712, signingScheme: 'eip712' }, separator).cancellation.signer, wallet.address.toLowerCase());
    // The signature covers the list as sent; a UID named twice is cancelled once.
    const repeated = [...uids, uids[0].toUpperCase().replace('0X', '0x')];
    const twice = await wallet.signTypedData(domain, CANCELLATIONS_TYPES, { orderUids: repeated });
    const signed = verifyCancellations({ orderUids: repeated, signature: twice, signingScheme: 'eip712' }, separator);
    assert.deepEqual([signed.uids, signed.cancellation.signer], [uids, wallet.address.toLowerCase()]);
    const ethsign = await wallet.signMessage(Buffer.from(cancellationsDigest(separator, uids).slice(2), 'hex'));
    assert.equal(verifyCancellations({ orderUids: uids, signature: ethsign, signingScheme: 'ethsign' }, separator).cancellation.signer, wallet.address.toLowerCase());
    assert.notEqual(verifyCancellations({ orderUids: [uids[0]], signature: eip712, signingScheme: 'eip712' }, separator).cancellation.signer, wallet.address.toLowerCase());
    refusedWith(() => verifyCancellations({ orderUids: [], signature: eip712, signingScheme: 'eip712' }, separator), 'InvalidOrderData');
  });
});
