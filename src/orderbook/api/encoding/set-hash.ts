/**
 * A hash of a set of byte strings that follows the set one element at a time: adding or removing an element
 * costs that element, not the set, and the same set hashes the same whatever the order and history of the
 * changes that made it. The solvable orders' ETag is this hash of their texts, so that one new order does not
 * re-hash the other 100,000, and two instances that hold the same orders answer the same ETag.
 *
 * LtHash16 (Bellare and Micciancio's lattice hash with the parameters of Lewi et al., "Securing Update
 * Propagation with Homomorphic Hashing", 2019): each element is expanded by SHAKE256 into 1024 lanes of 16
 * bits, and the set's state is their lane-wise sum modulo 2^16. The digest is SHA-256 of the state and the
 * element count.
 */
import { createHash } from 'node:crypto';

const LANES = 1024;

export class SetHash {
  private readonly lanes = new Uint16Array(LANES);
  private count = 0;

  add(element: Buffer): void {
    this.apply(element, 1);
    this.count++;
  }

  /** Removes an element added before (removing one that is not there leaves a state no set has). */
  remove(element: Buffer): void {
    this.apply(element, -1);
    this.count--;
  }

  /** SHA-256 of the state (lanes little-endian) and the element count. */
  digest(): Buffer {
    const state = Buffer.alloc(LANES * 2 + 8);
    for (let i = 0; i < LANES; i++) state.writeUInt16LE(this.lanes[i], i * 2);
    state.writeBigUInt64LE(BigInt(this.count), LANES * 2);
    return createHash('sha256').update(state).digest();
  }

  private apply(element: Buffer, sign: 1 | -1): void {
    const expanded = createHash('shake256', { outputLength: LANES * 2 }).update(element).digest();
    const lanes = this.lanes;
    // Read little-endian byte by byte, so that every platform sums the same numbers (the Uint16Array wraps).
    for (let i = 0; i < LANES; i++) lanes[i] += sign * (expanded[2 * i] | (expanded[2 * i + 1] << 8));
  }
}
