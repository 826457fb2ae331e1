/**
 * What the GPv2Settlement contract signs and hashes (GPv2Signing, GPv2Order): the EIP-712 domain, the order
 * struct hash and signing digest, the cancellation digest, the ethsign digest and the 56-byte order UID.
 *
 * The order struct hash is computed over the ABI-encoded words rather than with ethers' generic
 * TypedDataEncoder, which walks the type description for every order and costs several times more per order
 * (bench/signing.ts measures both); test/orderbook/domain/eip712.test.ts proves the two equal, and the digest
 * equal to TypedDataEncoder.hash. The hashes of intake go through the native keccak binding
 * (native-keccak.ts); the type hashes, made once, through ethers.
 */
import { hexBytes, bytesHex } from './hex.js';
import { TypedDataEncoder, ZeroAddress, getBytes, hexlify, id, toBeArray, type TypedDataDomain } from 'ethers';
import { keccakHex } from './native-keccak.js';

export type OrderKind = 'sell' | 'buy';
export type SellTokenBalance = 'erc20' | 'external' | 'internal';
export type BuyTokenBalance = 'erc20' | 'internal';

/** The signed part of an order (GPv2Order.Data), addresses lowercase, amounts as bigint. */
export interface OrderData {
  sellToken: string;
  buyToken: string;
  /** null: the owner receives the buy token (signed as address(0)). */
  receiver: string | null;
  sellAmount: bigint;
  buyAmount: bigint;
  validTo: number;
  appData: string;
  feeAmount: bigint;
  kind: OrderKind;
  partiallyFillable: boolean;
  sellTokenBalance: SellTokenBalance;
  buyTokenBalance: BuyTokenBalance;
}

export const DOMAIN_NAME = 'Gnosis Protocol';
export const DOMAIN_VERSION = 'v2';

/** The EIP-712 types of an order and of a cancellation, as wallets sign them (ethers `signTypedData`). */
export const ORDER_TYPES = {
  Order: [
    { name: 'sellToken', type: 'address' },
    { name: 'buyToken', type: 'address' },
    { name: 'receiver', type: 'address' },
    { name: 'sellAmount', type: 'uint256' },
    { name: 'buyAmount', type: 'uint256' },
    { name: 'validTo', type: 'uint32' },
    { name: 'appData', type: 'bytes32' },
    { name: 'feeAmount', type: 'uint256' },
    { name: 'kind', type: 'string' },
    { name: 'partiallyFillable', type: 'bool' },
    { name: 'sellTokenBalance', type: 'string' },
    { name: 'buyTokenBalance', type: 'string' },
  ],
};
export const CANCELLATION_TYPES = { OrderCancellation: [{ name: 'orderUid', type: 'bytes' }] };

export const ORDER_TYPE_HASH = id(
  'Order(address sellToken,address buyToken,address receiver,uint256 sellAmount,uint256 buyAmount,uint32 validTo,' +
    'bytes32 appData,uint256 feeAmount,string kind,bool partiallyFillable,string sellTokenBalance,string buyTokenBalance)',
);
export const CANCELLATION_TYPE_HASH = id('OrderCancellation(bytes orderUid)');
/** The bulk cancellation of DELETE /api/v1/orders. */
export const CANCELLATIONS_TYPES = { OrderCancellations: [{ name: 'orderUids', type: 'bytes[]' }] };

/** The settlement contract's domain: `{name: "Gnosis Protocol", version: "v2", chainId, verifyingContract}`. */
export function gpv2Domain(chainId: bigint | number, verifyingContract: string): TypedDataDomain {
  return { name: DOMAIN_NAME, version: DOMAIN_VERSION, chainId, verifyingContract };
}

export function domainSeparator(domain: TypedDataDomain): string {
  return TypedDataEncoder.hashDomain(domain);
}

// Strings of the struct are signed as the keccak of the string; there are only these five.
const STRING_HASHES: Record<OrderKind | SellTokenBalance | BuyTokenBalance, Uint8Array> = {
  sell: getBytes(id('sell')),
  buy: getBytes(id('buy')),
  erc20: getBytes(id('erc20')),
  external: getBytes(id('external')),
  internal: getBytes(id('internal')),
};
const ORDER_TYPE_HASH_BYTES = getBytes(ORDER_TYPE_HASH);
const WORD = 32;

function putAddress(words: Uint8Array, index: number, address: string): void {
  words.set(hexBytes(address), index * WORD + 12);
}

function putUint(words: Uint8Array, index: number, value: bigint | number): void {
  const bytes = toBeArray(value);
  if (bytes.length > WORD) throw new RangeError(`${value} does not fit in 256 bits`);
  words.set(bytes, (index + 1) * WORD - bytes.length);
}

/** hashStruct(order) of EIP-712: keccak256 of the type hash and the 12 fields, each as one 32-byte word. */
export function orderStructHash(order: OrderData): string {
  const words = new Uint8Array(13 * WORD);
  words.set(ORDER_TYPE_HASH_BYTES, 0);
  putAddress(words, 1, order.sellToken);
  putAddress(words, 2, order.buyToken);
  putAddress(words, 3, order.receiver ?? ZeroAddress);
  putUint(words, 4, order.sellAmount);
  putUint(words, 5, order.buyAmount);
  putUint(words, 6, order.validTo);
  words.set(hexBytes(order.appData), 7 * WORD);
  putUint(words, 8, order.feeAmount);
  words.set(STRING_HASHES[order.kind], 9 * WORD);
  putUint(words, 10, order.partiallyFillable ? 1 : 0);
  words.set(STRING_HASHES[order.sellTokenBalance], 11 * WORD);
  words.set(STRING_HASHES[order.buyTokenBalance], 12 * WORD);
  return keccakHex(words);
}

/** keccak256("\x19\x01" ‖ domainSeparator ‖ structHash): what an eip712 signature signs. */
function typedDataDigest(separator: string, structHash: string): string {
  const message = new Uint8Array(66);
  message[0] = 0x19;
  message[1] = 0x01;
  message.set(hexBytes(separator), 2);
  message.set(hexBytes(structHash), 34);
  return keccakHex(message);
}

/** The order's signing digest: the first 32 bytes of its UID, and what eip712 and eip1271 signatures sign. */
export function orderDigest(separator: string, order: OrderData): string {
  return typedDataDigest(separator, orderStructHash(order));
}

/** The digest of `OrderCancellation(bytes orderUid)` that a cancellation signs. */
export function cancellationDigest(separator: string, orderUid: string): string {
  const words = new Uint8Array(2 * WORD);
  words.set(getBytes(CANCELLATION_TYPE_HASH), 0);
  words.set(getBytes(keccakHex(getBytes(orderUid))), WORD);
  return typedDataDigest(separator, keccakHex(words));
}

/** The digest of `OrderCancellations(bytes[] orderUids)` that a bulk cancellation signs (rare: ethers' encoder). */
export function cancellationsDigest(separator: string, orderUids: string[]): string {
  return typedDataDigest(separator, TypedDataEncoder.hashStruct('OrderCancellations', CANCELLATIONS_TYPES, { orderUids }));
}

const ETH_SIGN_PREFIX = new TextEncoder().encode('\x19Ethereum Signed Message:\n32');

/** keccak256("\x19Ethereum Signed Message:\n32" ‖ digest): what an ethsign signature signs. */
export function ethSignDigest(digest: string): string {
  const message = new Uint8Array(ETH_SIGN_PREFIX.length + WORD);
  message.set(ETH_SIGN_PREFIX, 0);
  message.set(hexBytes(digest), ETH_SIGN_PREFIX.length);
  return keccakHex(message);
}

export const ORDER_UID_BYTES = 56;

/** The order UID: digest (32 bytes) ‖ owner (20) ‖ validTo (4, big-endian), lowercase hex. */
export function packOrderUid(digest: string, owner: string, validTo: number): string {
  const uid = new Uint8Array(ORDER_UID_BYTES);
  uid.set(hexBytes(digest), 0);
  uid.set(hexBytes(owner), 32);
  new DataView(uid.buffer).setUint32(52, validTo, false);
  return bytesHex(uid);
}

export interface OrderUidParts {
  digest: string;
  owner: string;
  validTo: number;
}

/** The parts of a 56-byte UID (any case in, lowercase out); a RangeError when it is not 56 bytes of hex. */
export function unpackOrderUid(uid: string): OrderUidParts {
  if (!/^0x[0-9a-fA-F]{112}$/.test(uid)) throw new RangeError('an order UID is 0x + 112 hex digits');
  const bytes = getBytes(uid);
  return {
    digest: hexlify(bytes.subarray(0, 32)),
    owner: hexlify(bytes.subarray(32, 52)),
    validTo: new DataView(bytes.buffer, bytes.byteOffset).getUint32(52, false),
  };
}

/** The order as the value of `signTypedData(domain, ORDER_TYPES, value)`. */
export function orderTypedDataValue(order: OrderData): Record<string, unknown> {
  return { ...order, receiver: order.receiver ?? ZeroAddress };
}
