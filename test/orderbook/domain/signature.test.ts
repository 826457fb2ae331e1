import assert from 'node:assert/strict';
import { Signature, Wallet, getBytes, hexlify } from 'ethers';
import { cancellationDigest, domainSeparator, gpv2Domain, orderDigest } from '../../../src/orderbook/domain/eip712.js';
import {
  normalizeEcdsaSignature,
  presignOwner,
  recoverAddress,
  recoverEcdsaSigner,
} from '../../../src/orderbook/domain/signature.js';
import { orderData, signOrderData } from '../../support/orders.js';
import {
  CANCELLATION_EIP712_SIGNATURE,
  CANCELLATION_ETHSIGN_SIGNATURE,
  CANCELLATION_SEPARATOR,
  CANCELLATION_SIGNER,
  CANCELLATION_UID,
  DEV_KEYS,
  VECTOR_EIP712_SIGNATURE,
  VECTOR_ETHSIGN_SIGNATURE,
  VECTOR_ORDER,
  VECTOR_OWNER,
  VECTOR_SEPARATOR,
} from '../../support/vectors.js';

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const owner = VECTOR_OWNER.toLowerCase();

function withByte(signature: string, index: number, value: number): string {
  const bytes = getBytes(signature);
  bytes[index] = value;
  return hexlify(bytes);
}

describe('orderbook signature recovery', () => {
  const digest = orderDigest(VECTOR_SEPARATOR, VECTOR_ORDER);

  it('recovers the owner of the vector signatures (eip712 and ethsign)', () => {
    assert.equal(recoverEcdsaSigner('eip712', digest, VECTOR_EIP712_SIGNATURE), owner);
    assert.equal(recoverEcdsaSigner('ethsign', digest, VECTOR_ETHSIGN_SIGNATURE), owner);
    // Under the other scheme the same bytes sign another message: someone else, not the owner.
    assert.notEqual(recoverEcdsaSigner('ethsign', digest, VECTOR_EIP712_SIGNATURE), owner);
  });

  it('recovers the signer of the vector cancellations', () => {
    const cancellation = cancellationDigest(CANCELLATION_SEPARATOR, CANCELLATION_UID);
    assert.equal(recoverEcdsaSigner('eip712', cancellation, CANCELLATION_EIP712_SIGNATURE), CANCELLATION_SIGNER);
    assert.equal(recoverEcdsaSigner('ethsign', cancellation, CANCELLATION_ETHSIGN_SIGNATURE), CANCELLATION_SIGNER);
  });

  it('recovers signatures made by ethers v6 wallets (signTypedData, signMessage of the digest bytes)', async () => {
    const domain = gpv2Domain(1, '0x9008D19f58AAbD9eD0D60971565AA8510560ab41');
    const separator = domainSeparator(domain);
    for (const key of DEV_KEYS) {
      const wallet = new Wallet(key);
      const order = orderData({ sellToken: '0x' + '11'.repeat(20), buyToken: '0x' + '22'.repeat(20), sellAmount: 5n, buyAmount: 7n });
      const orderHash = orderDigest(separator, order);
      for (const scheme of ['eip712', 'ethsign'] as const) {
        const signature = await signOrderData(wallet, domain, order, scheme);
        assert.equal(recoverEcdsaSigner(scheme, orderHash, signature), wallet.address.toLowerCase(), scheme);
      }
    }
  });

  it('accepts v as 0/1 and normalises it to 27/28', () => {
    const v = getBytes(VECTOR_EIP712_SIGNATURE)[64];
    const raw = withByte(VECTOR_EIP712_SIGNATURE, 64, v - 27);
    assert.equal(recoverAddress(digest, raw), owner);
    assert.equal(normalizeEcdsaSignature(raw), VECTOR_EIP712_SIGNATURE);
    assert.equal(normalizeEcdsaSignature(VECTOR_EIP712_SIGNATURE.toUpperCase().replace('0X', '0x')), VECTOR_EIP712_SIGNATURE);
  });

  it("accepts a high-s signature, as the contract's ecrecover does", () => {
    const signature = Signature.from(VECTOR_EIP712_SIGNATURE);
    const highS = '0x' + (SECP256K1_N - BigInt(signature.s)).toString(16).padStart(64, '0');
    const flipped = signature.r + highS.slice(2) + (signature.v === 27 ? '1c' : '1b');
    assert.notEqual(flipped, VECTOR_EIP712_SIGNATURE);
    assert.equal(recoverAddress(digest, flipped), owner);
  });

  it('gives another signer or none for a tampered signature or digest', () => {
    assert.notEqual(recoverAddress(digest, withByte(VECTOR_EIP712_SIGNATURE, 40, 0x55)), owner);
    assert.notEqual(recoverAddress(withByte(digest, 0, 0x55), VECTOR_EIP712_SIGNATURE), owner);
    const otherOrder = orderDigest(VECTOR_SEPARATOR, { ...VECTOR_ORDER, buyAmount: VECTOR_ORDER.buyAmount - 1n });
    assert.notEqual(recoverAddress(otherOrder, VECTOR_EIP712_SIGNATURE), owner);
  });

  it('recovers no signer from malformed signatures', () => {
    const r = VECTOR_EIP712_SIGNATURE.slice(2, 66);
    const s = VECTOR_EIP712_SIGNATURE.slice(66, 130);
    const cases: Record<string, string> = {
      'too short': VECTOR_EIP712_SIGNATURE.slice(0, -2),
      'too long': VECTOR_EIP712_SIGNATURE + '00',
      'empty': '0x',
      'not hex': VECTOR_EIP712_SIGNATURE.replace('59', 'zz'),
      'v = 29': withByte(VECTOR_EIP712_SIGNATURE, 64, 29),
      'v = 2': withByte(VECTOR_EIP712_SIGNATURE, 64, 2),
      'r = 0': '0x' + '00'.repeat(32) + s + '1c',
      's = 0': '0x' + r + '00'.repeat(32) + '1c',
      's = n': '0x' + r + SECP256K1_N.toString(16) + '1c',
      'r = n': '0x' + SECP256K1_N.toString(16) + s + '1c',
    };
    for (const [name, signature] of Object.entries(cases)) {
      assert.equal(recoverAddress(digest, signature), null, name);
      assert.equal(recoverEcdsaSigner('ethsign', digest, signature), null, name);
    }
  });

  it('reads the owner of a presign signature', () => {
    assert.equal(presignOwner(VECTOR_OWNER), owner);
    assert.equal(presignOwner('0x'), null);
    assert.equal(presignOwner(VECTOR_OWNER + '00'), null);
    assert.equal(presignOwner(VECTOR_EIP712_SIGNATURE), null);
  });
});
