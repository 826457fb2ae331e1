/**
 * keccak256 through the native binding (the `keccak` package, from the authors of the `secp256k1` binding)
 * for the hashes of order intake: every order costs four (struct hash, digest, ethsign prefix or UID checks,
 * the recovered public key), and the native one is several times faster than ethers' pure-JS keccak
 * (bench/signing.ts measures both). A plain function used where intake hashes: importing this module changes
 * nothing for anyone else (ethers' own keccak256 is left as it is), and the binding is loaded on first use.
 * test/orderbook/domain/eip712.test.ts checks it against ethers' keccak256 on known vectors.
 */
import { createRequire } from 'node:module';

interface KeccakHash {
  update(data: Buffer): KeccakHash;
  digest(): Buffer;
}

type CreateKeccak = (algorithm: 'keccak256') => KeccakHash;

let createKeccak: CreateKeccak | undefined;

/** The native binding itself, not the package's main entry that falls back to pure JS without a word. */
function binding(): CreateKeccak {
  return (createKeccak ??= createRequire(import.meta.url)('keccak/bindings') as CreateKeccak);
}

/** keccak256 of `data` as 32 bytes. */
export function keccakBytes(data: Uint8Array): Uint8Array {
  // The binding takes Buffers only: a view of the same memory, not a copy.
  return binding()('keccak256').update(Buffer.from(data.buffer, data.byteOffset, data.byteLength)).digest();
}

/** keccak256 of `data` as 0x-prefixed lowercase hex, as ethers' keccak256 answers. */
export function keccakHex(data: Uint8Array): string {
  return '0x' + (keccakBytes(data) as Buffer).toString('hex');
}
