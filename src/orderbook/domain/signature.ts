/**
 * Who signed an order or a cancellation, under the four signing schemes of the settlement contract.
 *
 * eip712 and ethsign are recovered here with the native libsecp256k1 binding, accepting what the contract's
 * `ecrecover` accepts: 65 bytes r‖s‖v, any s (the precompile does not apply EIP-2's low-s rule, so neither
 * do we), v 27 or 28, and also 0 or 1 as most signers emit and CoW's order book normalises. Anything the
 * precompile would answer address(0) for (wrong length, other v, r or s zero or not below the curve order)
 * is no signer at all. Signatures are stored normalised to v 27/28, as the contract needs them.
 */
import { createRequire } from 'node:module';
import { hexBytes, bytesHex } from './hex.js';
import { ethSignDigest } from './eip712.js';
import { keccakBytes } from './native-keccak.js';

type Secp256k1 = typeof import('secp256k1');
let secp256k1: Secp256k1 | undefined;

/**
 * The native binding itself, loaded on first use: the package's main entry silently falls back to a pure-JS
 * implementation many times slower when the binding fails to load, and we would rather fail loudly.
 */
function native(): Secp256k1 {
  return (secp256k1 ??= createRequire(import.meta.url)('secp256k1/bindings') as Secp256k1);
}

export type SigningScheme = 'eip712' | 'ethsign' | 'eip1271' | 'presign';
export type EcdsaSigningScheme = 'eip712' | 'ethsign';

/** The 65 signature bytes with v as 27 or 28, or null when not 65 bytes with v in 0, 1, 27, 28. */
function ecdsaBytes(signature: string): Uint8Array | null {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return null;
  const bytes = hexBytes(signature);
  const v = bytes[64];
  if (v === 0 || v === 1) bytes[64] = v + 27;
  else if (v !== 27 && v !== 28) return null;
  return bytes;
}

/** The signature with v as 27 or 28 (lowercase hex), or null when it is not a 65-byte r‖s‖v. */
export function normalizeEcdsaSignature(signature: string): string | null {
  const bytes = ecdsaBytes(signature);
  return bytes && bytesHex(bytes);
}

/** The address (lowercase) whose key signed `digest`, or null when the signature recovers no key. */
export function recoverAddress(digest: string, signature: string): string | null {
  const bytes = ecdsaBytes(signature);
  if (!bytes) return null;
  let publicKey: Uint8Array;
  try {
    publicKey = native().ecdsaRecover(bytes.subarray(0, 64), bytes[64] - 27, hexBytes(digest), false);
  } catch {
    return null; // r or s out of range, or no curve point for r
  }
  // The address is the last 20 bytes of the keccak of the 64-byte public key (without the 0x04 prefix).
  return bytesHex(keccakBytes(publicKey.subarray(1)).subarray(12));
}

/** The signer of an eip712 or ethsign signature of an EIP-712 `digest` (order or cancellation), or null. */
export function recoverEcdsaSigner(scheme: EcdsaSigningScheme, digest: string, signature: string): string | null {
  return recoverAddress(scheme === 'ethsign' ? ethSignDigest(digest) : digest, signature);
}

/**
 * The owner a presign order names in its signature: its 20-byte address (lowercase), or null when the
 * signature is not 20 bytes. The order stays presignaturePending until the contract's PreSignature event.
 */
export function presignOwner(signature: string): string | null {
  return /^0x[0-9a-fA-F]{40}$/.test(signature) ? signature.toLowerCase() : null;
}

