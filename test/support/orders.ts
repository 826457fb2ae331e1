/**
 * Orders and cancellations as a client builds them: an OrderCreation body signed with an ethers v6 Wallet
 * (signTypedData for eip712, signMessage of the digest bytes for ethsign) in a given EIP-712 domain; and,
 * for load (benchmarks, bursts), the same eip712 signature made with the native secp256k1 binding.
 */
import { createRequire } from 'node:module';
import { computeAddress, concat, getBytes, hexlify, type Signer, type TypedDataDomain } from 'ethers';
import type { OrderCancellation } from '../../src/generated/orderbook/order-cancellation.js';
import type { OrderCreation } from '../../src/generated/orderbook/order-creation.js';
import {
  CANCELLATION_TYPES,
  ORDER_TYPES,
  cancellationDigest,
  domainSeparator,
  orderDigest,
  orderTypedDataValue,
  packOrderUid,
  type OrderData,
} from '../../src/orderbook/domain/eip712.js';
import type { EcdsaSigningScheme } from '../../src/orderbook/domain/signature.js';

export const ZERO_APP_DATA = '0x' + '00'.repeat(32);

/** What a test says about an order; everything else has a plain default (a sell order, valid for an hour). */
export interface OrderParams {
  sellToken: string;
  buyToken: string;
  sellAmount: bigint;
  buyAmount: bigint;
  feeAmount?: bigint;
  validTo?: number;
  kind?: OrderData['kind'];
  partiallyFillable?: boolean;
  receiver?: string | null;
  appData?: string;
  sellTokenBalance?: OrderData['sellTokenBalance'];
  buyTokenBalance?: OrderData['buyTokenBalance'];
}

export function orderData(params: OrderParams): OrderData {
  return {
    sellToken: params.sellToken,
    buyToken: params.buyToken,
    receiver: params.receiver ?? null,
    sellAmount: params.sellAmount,
    buyAmount: params.buyAmount,
    validTo: params.validTo ?? Math.floor(Date.now() / 1000) + 3600,
    appData: params.appData ?? ZERO_APP_DATA,
    feeAmount: params.feeAmount ?? 0n,
    kind: params.kind ?? 'sell',
    partiallyFillable: params.partiallyFillable ?? false,
    sellTokenBalance: params.sellTokenBalance ?? 'erc20',
    buyTokenBalance: params.buyTokenBalance ?? 'erc20',
  };
}

/** The OrderCreation body of `order` with a signature, and no `from`. */
export function orderCreation(order: OrderData, signingScheme: OrderCreation['signingScheme'], signature: string): OrderCreation {
  return {
    sellToken: order.sellToken,
    buyToken: order.buyToken,
    receiver: order.receiver,
    sellAmount: order.sellAmount.toString(),
    buyAmount: order.buyAmount.toString(),
    validTo: order.validTo,
    appData: order.appData,
    feeAmount: order.feeAmount.toString(),
    kind: order.kind,
    partiallyFillable: order.partiallyFillable,
    sellTokenBalance: order.sellTokenBalance,
    buyTokenBalance: order.buyTokenBalance,
    signingScheme,
    signature,
  };
}

/** Signs the order's digest as a wallet does for `scheme`. */
export async function signOrderData(
  signer: Signer,
  domain: TypedDataDomain,
  order: OrderData,
  scheme: EcdsaSigningScheme = 'eip712',
): Promise<string> {
  return scheme === 'eip712'
    ? signer.signTypedData(domain, ORDER_TYPES, orderTypedDataValue(order))
    : signer.signMessage(getBytes(orderDigest(domainSeparator(domain), order)));
}

export interface SignedOrderCreation {
  body: OrderCreation;
  /** The UID the book must answer with. */
  uid: string;
  owner: string;
}

/** A valid, signed OrderCreation body for `params`, with `from` set to the signer when `withFrom`. */
export async function signOrder(
  signer: Signer,
  domain: TypedDataDomain,
  params: OrderParams,
  options: { scheme?: EcdsaSigningScheme; withFrom?: boolean } = {},
): Promise<SignedOrderCreation> {
  const order = orderData(params);
  const scheme = options.scheme ?? 'eip712';
  const signature = await signOrderData(signer, domain, order, scheme);
  const owner = (await signer.getAddress()).toLowerCase();
  const body = orderCreation(order, scheme, signature);
  if (options.withFrom) body.from = owner;
  return { body, owner, uid: packOrderUid(orderDigest(domainSeparator(domain), order), owner, order.validTo) };
}

/** The OrderCancellation body cancelling `orderUid`, signed by `signer`. */
export async function signCancellation(
  signer: Signer,
  domain: TypedDataDomain,
  orderUid: string,
  scheme: EcdsaSigningScheme = 'eip712',
): Promise<OrderCancellation> {
  const signature =
    scheme === 'eip712'
      ? await signer.signTypedData(domain, CANCELLATION_TYPES, { orderUid })
      : await signer.signMessage(getBytes(cancellationDigest(domainSeparator(domain), orderUid)));
  return { signature, signingScheme: scheme };
}

const secp256k1 = createRequire(import.meta.url)('secp256k1/bindings') as typeof import('secp256k1');
const addresses = new Map<string, string>();

/**
 * The eip712 signature (r‖s‖v, v 27 or 28) of an EIP-712 `digest` by `privateKey`: what signTypedData
 * gives (RFC 6979 nonces, low s), made by the native binding in a few tens of microseconds instead of ~1 ms.
 */
export function signDigest(privateKey: string, digest: string): string {
  const { signature, recid } = secp256k1.ecdsaSign(getBytes(digest), getBytes(privateKey));
  return hexlify(concat([signature, new Uint8Array([27 + recid])]));
}

/** signOrder's eip712 result, signed with signDigest against a domain separator. */
export function signOrderNative(privateKey: string, separator: string, params: OrderParams): SignedOrderCreation {
  let owner = addresses.get(privateKey);
  if (!owner) {
    owner = computeAddress(privateKey).toLowerCase();
    addresses.set(privateKey, owner);
  }
  const order = orderData(params);
  const digest = orderDigest(separator, order);
  return { body: orderCreation(order, 'eip712', signDigest(privateKey, digest)), owner, uid: packOrderUid(digest, owner, order.validTo) };
}
