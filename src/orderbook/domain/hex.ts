/**
 * Hex ⇄ bytes with Node's own codec, for the per-order hashing and recovery path: the strings that reach it
 * were already checked (schema patterns), and ethers' getBytes/hexlify, which check and convert them again
 * in JavaScript, cost order intake tens of microseconds per order (bench/orderbook.ts, worker profile).
 */

/** The bytes of a 0x-prefixed hex string that is known to be well formed. */
export function hexBytes(hex: string): Uint8Array {
  return Buffer.from(hex.slice(2), 'hex');
}

/** Lowercase 0x-prefixed hex of `bytes`. */
export function bytesHex(bytes: Uint8Array): string {
  return '0x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
