/**
 * Makes ethers' keccak256 use the native keccak binding (the `keccak` package, from the authors of the
 * `secp256k1` binding) instead of its pure-JS implementation, through ethers' own `keccak256.register`
 * hook. Every order costs four keccaks (struct hash, digest, ethsign prefix or UID checks, the recovered
 * public key); on this project's machines the native one is about five times faster, which is most of
 * the hashing cost of order intake (bench/signing.ts measures it). Results are the same: ethers hashes
 * through whatever is registered, and the tests check known vectors after registration.
 */
import { createRequire } from 'node:module';
import { keccak256 } from 'ethers';

interface KeccakHash {
  update(data: Buffer): KeccakHash;
  digest(): Uint8Array;
}

// The native binding itself, not the package's main entry that falls back to pure JS without a word.
const createKeccak = createRequire(import.meta.url)('keccak/bindings') as (algorithm: 'keccak256') => KeccakHash;

let installed = false;

/** Registers the native keccak with ethers once per process; later calls do nothing. */
export function installNativeKeccak(): void {
  if (installed) return;
  // The binding takes Buffers only: a view of the same memory, not a copy.
  keccak256.register((data: Uint8Array) =>
    createKeccak('keccak256').update(Buffer.from(data.buffer, data.byteOffset, data.byteLength)).digest(),
  );
  installed = true;
}
