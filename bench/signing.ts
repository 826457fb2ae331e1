/**
 * Per-order signing costs on this machine: the order digest (ours and ethers' generic TypedDataEncoder,
 * for comparison), one signature recovery (the native secp256k1 binding alone, and to the signer's
 * address: parsing, recovery, keccak of the public key), the whole of
 * validateOrderCreation (schema, rules, digest, recovery, UID), and what a client pays to sign with an
 * ethers Wallet. A report, not a test: `node dist/bench/signing.js` prints the figures as JSON.
 */
import { createRequire } from 'node:module';
import { TypedDataEncoder, Wallet, getBytes } from 'ethers';
import { ORDER_TYPES, domainSeparator, gpv2Domain, orderDigest, orderTypedDataValue, type OrderData } from '../src/orderbook/domain/eip712.js';
import { validateOrderCreation } from '../src/orderbook/domain/order.js';
import { recoverEcdsaSigner } from '../src/orderbook/domain/signature.js';
import { orderCreation, signOrderData } from '../test/support/orders.js';
import { round, type Figure } from './tools.js';

const DOMAIN = gpv2Domain(1, '0x9008D19f58AAbD9eD0D60971565AA8510560ab41');
const SEPARATOR = domainSeparator(DOMAIN);
const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

/** Mean µs per call of `fn`, run for about `ms` milliseconds after a short warm-up. */
function microseconds(fn: (i: number) => unknown, ms: number): number {
  for (let i = 0; i < 200; i++) fn(i);
  let calls = 0;
  const start = process.hrtime.bigint();
  const until = start + BigInt(ms) * 1_000_000n;
  let now = start;
  while (now < until) {
    for (let i = 0; i < 50; i++) fn(calls++);
    now = process.hrtime.bigint();
  }
  return Number(now - start) / 1000 / calls;
}

async function asyncMilliseconds(fn: () => Promise<unknown>, count: number): Promise<number> {
  await fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) await fn();
  return Number(process.hrtime.bigint() - start) / 1e6 / count;
}

export async function measureSigning(msPerFigure = 700): Promise<Record<string, Figure>> {
  const wallet = new Wallet(KEY);
  const now = Math.floor(Date.now() / 1000);
  // Distinct orders, so that nothing is served from a cache.
  const orders: OrderData[] = Array.from({ length: 64 }, (_, i) => ({
    sellToken: '0x' + 'a1'.repeat(20),
    buyToken: '0x' + 'b2'.repeat(20),
    receiver: null,
    sellAmount: 10n ** 18n + BigInt(i),
    buyAmount: 5n * 10n ** 17n,
    validTo: now + 3600,
    appData: '0x' + '00'.repeat(32),
    feeAmount: 10n ** 15n,
    kind: 'sell',
    partiallyFillable: false,
    sellTokenBalance: 'erc20',
    buyTokenBalance: 'erc20',
  }));
  const signatures = await Promise.all(orders.map((order) => signOrderData(wallet, DOMAIN, order)));
  const digests = orders.map((order) => orderDigest(SEPARATOR, order));
  const bodies = orders.map((order, i) => orderCreation(order, 'eip712', signatures[i]));
  const owner = wallet.address.toLowerCase();
  for (let i = 0; i < orders.length; i++) {
    if (recoverEcdsaSigner('eip712', digests[i], signatures[i]) !== owner) throw new Error('recovery is wrong');
  }

  const n = orders.length;
  const digest = microseconds((i) => orderDigest(SEPARATOR, orders[i % n]), msPerFigure);
  const typedData = microseconds(
    (i) => TypedDataEncoder.hash(DOMAIN, ORDER_TYPES, orderTypedDataValue(orders[i % n])),
    msPerFigure,
  );
  const secp256k1 = createRequire(import.meta.url)('secp256k1/bindings') as typeof import('secp256k1');
  const raw = signatures.map((signature) => getBytes(signature));
  const rawDigests = digests.map((digest) => getBytes(digest));
  const nativeRecovery = microseconds(
    (i) => secp256k1.ecdsaRecover(raw[i % n].subarray(0, 64), raw[i % n][64] - 27, rawDigests[i % n], false),
    msPerFigure,
  );
  const recovery = microseconds((i) => recoverEcdsaSigner('eip712', digests[i % n], signatures[i % n]), msPerFigure);
  const context = { domainSeparator: SEPARATOR, now, minValidToSeconds: 0 };
  const validation = microseconds((i) => validateOrderCreation(bodies[i % n], context), msPerFigure);
  let next = 0;
  const walletSign = await asyncMilliseconds(() => signOrderData(wallet, DOMAIN, orders[next++ % n]), 50);

  return {
    order_digest_us: { value: round(digest, 1), unit: 'µs per order' },
    order_digest_ethers_typed_data_encoder_us: { value: round(typedData, 1), unit: 'µs per order' },
    native_ecdsa_recover_us: { value: round(nativeRecovery, 1), unit: 'µs per call of the secp256k1 binding alone' },
    native_ecdsa_recoveries_per_s: { value: Math.round(1e6 / nativeRecovery), unit: 'recoveries/s on one core, binding alone' },
    signature_recovery_us: { value: round(recovery, 1), unit: 'µs per signature' },
    signature_recoveries_per_s: { value: Math.round(1e6 / recovery), unit: 'recoveries/s on one core, to the address' },
    order_validation_us: { value: round(validation, 1), unit: 'µs per order (schema, rules, digest, recovery, UID)' },
    order_validations_per_s: { value: Math.round(1e6 / validation), unit: 'orders/s on one core' },
    ethers_wallet_sign_order_ms: { value: round(walletSign, 2), unit: 'ms per order (client side, signTypedData)' },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await measureSigning(), null, 2));
}
