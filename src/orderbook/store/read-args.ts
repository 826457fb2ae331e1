import type { StreamPartition } from './types.js';

/** Checks readAll's arguments the same way for every store: positions, counts and the partition. */
export function checkReadAll(after: number, limit: number, partition?: StreamPartition): void {
  if (!Number.isSafeInteger(after) || after < 0) throw new RangeError(`after must be an integer >= 0, got ${after}`);
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`limit must be an integer >= 0, got ${limit}`);
  if (partition && !(Number.isSafeInteger(partition.count) && partition.count >= 1 && Number.isSafeInteger(partition.index)
    && partition.index >= 0 && partition.index < partition.count)) {
    throw new RangeError(`partition must be an index from 0 below a count >= 1, got ${JSON.stringify(partition)}`);
  }
}
