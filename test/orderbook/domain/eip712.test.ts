import assert from 'node:assert/strict';
import { TypedDataEncoder, getBytes, hashMessage, id, keccak256, toUtf8Bytes } from 'ethers';
import {
  CANCELLATION_TYPES,
  ORDER_TYPES,
  ORDER_TYPE_HASH,
  cancellationDigest,
  domainSeparator,
  ethSignDigest,
  gpv2Domain,
  orderDigest,
  orderStructHash,
  orderTypedDataValue,
  packOrderUid,
  unpackOrderUid,
  type OrderData,
} from '../../../src/orderbook/domain/eip712.js';
import { keccakBytes, keccakHex } from '../../../src/orderbook/domain/native-keccak.js';
import { VECTOR_DOMAIN, VECTOR_ORDER, VECTOR_OWNER, VECTOR_SEPARATOR, VECTOR_UID } from '../../support/vectors.js';

const MAINNET = gpv2Domain(1, '0x9008D19f58AAbD9eD0D60971565AA8510560ab41');

/** Orders that exercise every field: both kinds, all balances, null receiver, extreme amounts. */
function variedOrders(): OrderData[] {
  const orders: OrderData[] = [];
  const kinds = ['sell', 'buy'] as const;
  const sellBalances = ['erc20', 'external', 'internal'] as const;
  const buyBalances = ['erc20', 'internal'] as const;
  let n = 1;
  for (const kind of kinds)
    for (const sellTokenBalance of sellBalances)
      for (const buyTokenBalance of buyBalances) {
        n++;
        orders.push({
          sellToken: '0x' + n.toString(16).padStart(2, '0').repeat(20),
          buyToken: '0x' + 'ab'.repeat(20),
          receiver: n % 2 ? null : '0x' + 'cd'.repeat(20),
          sellAmount: n % 3 ? (1n << 256n) - 1n : 1n,
          buyAmount: BigInt(n) * 10n ** 18n,
          validTo: n % 2 ? 0 : 0xffffffff - n,
          appData: keccak256(toUtf8Bytes(`app data ${n}`)),
          feeAmount: n % 4 ? 0n : 12345n,
          kind,
          partiallyFillable: n % 2 === 0,
          sellTokenBalance,
          buyTokenBalance,
        });
      }
  return orders;
}

describe('orderbook EIP-712 hashing', () => {
  it('reproduces the test vector: domain separator and order UID', () => {
    assert.equal(domainSeparator(VECTOR_DOMAIN), VECTOR_SEPARATOR);
    const digest = orderDigest(VECTOR_SEPARATOR, VECTOR_ORDER);
    assert.equal(packOrderUid(digest, VECTOR_OWNER, VECTOR_ORDER.validTo), VECTOR_UID);
  });

  it('uses the typehash of the spec', () => {
    assert.equal(ORDER_TYPE_HASH, '0xd5a25ba2e97094ad7d83dc28a6572da797d6b3e7fc6663bd93efb789fc17e489');
    assert.equal(TypedDataEncoder.from(ORDER_TYPES).encodeType('Order'), 'Order(address sellToken,address buyToken,address receiver,uint256 sellAmount,uint256 buyAmount,uint32 validTo,bytes32 appData,uint256 feeAmount,string kind,bool partiallyFillable,string sellTokenBalance,string buyTokenBalance)');
  });

  it('computes the struct hash and digest ethers TypedDataEncoder computes, for every kind of field', () => {
    const encoder = TypedDataEncoder.from(ORDER_TYPES);
    const separator = domainSeparator(MAINNET);
    for (const order of [VECTOR_ORDER, ...variedOrders()]) {
      const value = orderTypedDataValue(order);
      assert.equal(orderStructHash(order), encoder.hashStruct('Order', value));
      assert.equal(orderDigest(separator, order), TypedDataEncoder.hash(MAINNET, ORDER_TYPES, value));
    }
  });

  it('signs a null receiver as address(0)', () => {
    const withNull = { ...VECTOR_ORDER, receiver: null };
    const withZero = { ...VECTOR_ORDER, receiver: '0x' + '00'.repeat(20) };
    assert.equal(orderStructHash(withNull), orderStructHash(withZero));
    assert.notEqual(orderStructHash(withNull), orderStructHash(VECTOR_ORDER));
  });

  it('refuses an amount beyond uint256 rather than hashing something else', () => {
    assert.throws(() => orderStructHash({ ...VECTOR_ORDER, sellAmount: 1n << 256n }), RangeError);
  });

  it('computes the cancellation digest of OrderCancellation(bytes orderUid)', () => {
    assert.equal(
      cancellationDigest(domainSeparator(MAINNET), VECTOR_UID),
      TypedDataEncoder.hash(MAINNET, CANCELLATION_TYPES, { orderUid: VECTOR_UID }),
    );
  });

  it('computes the ethsign digest as the "\\x19Ethereum Signed Message:\\n32" hash of the digest bytes', () => {
    const digest = orderDigest(VECTOR_SEPARATOR, VECTOR_ORDER);
    assert.equal(ethSignDigest(digest), hashMessage(getBytes(digest)));
  });

  it('packs and unpacks UIDs', () => {
    assert.deepEqual(unpackOrderUid(VECTOR_UID.toUpperCase().replace('0X', '0x')), {
      digest: '0x0e45d31fd31b28c26031cdd81b35a8938b2ccca2cc425fcf440fd3bfed1eede9',
      owner: VECTOR_OWNER.toLowerCase(),
      validTo: 0xffffffff,
    });
    const uid = packOrderUid('0x' + 'ab'.repeat(32), VECTOR_OWNER, 1_700_000_000);
    assert.equal(unpackOrderUid(uid).validTo, 1_700_000_000);
    assert.equal(uid.length, 2 + 112);
    for (const bad of ['0x', VECTOR_UID.slice(0, -2), VECTOR_UID + '00', VECTOR_UID.replace('0e', 'zz'), VECTOR_UID.slice(2)]) {
      assert.throws(() => unpackOrderUid(bad), RangeError, bad);
    }
  });

  it('hashes with the native keccak and gets the standard results', () => {
    // Known answers: keccak256 of "", "abc", and of 1000 bytes (several sponge blocks) computed independently.
    assert.equal(keccakHex(new Uint8Array(0)), '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    assert.equal(keccakHex(toUtf8Bytes('abc')), '0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
    assert.equal(id('abc'), '0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
    const long = new Uint8Array(1000).map((_, i) => i % 251);
    assert.equal(keccakHex(long), LONG_KECCAK);
    assert.equal(keccak256(long), LONG_KECCAK);
    // A view into a larger buffer hashes only its own bytes.
    const buffer = new Uint8Array(1100).map((_, i) => (i - 50) % 251);
    assert.equal(keccakHex(buffer.subarray(50, 1050)), LONG_KECCAK);
    assert.equal(Buffer.from(keccakBytes(buffer.subarray(50, 1050))).toString('hex'), LONG_KECCAK.slice(2));
  });
});

// Computed with @noble/hashes' keccak_256 (ethers' own pure-JS implementation), before the native one existed here.
const LONG_KECCAK = '0xaf692982e84a5a9688359025660a7857cd28ee7c8d867cfa1677baf2e6d1f63b';
