/** Checks the stores' read arguments the same way for every store. */
import type { StreamRead } from './types.js';

function checkWhole(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be an integer >= 0, got ${value}`);
}

export function checkReadAll(after: number, limit: number): void {
  checkWhole('after', after);
  checkWhole('limit', limit);
}

export function checkStreamRead({ after, before, upTo, limit }: StreamRead): void {
  if (typeof after?.streamId !== 'string' || !Number.isSafeInteger(after.version) || after.version < 0) {
    throw new RangeError(`after must be a stream id and a version >= 0, got ${JSON.stringify(after)}`);
  }
  if (before !== undefined && typeof before !== 'string') throw new RangeError(`before must be a stream id, got ${JSON.stringify(before)}`);
  checkWhole('upTo', upTo);
  checkWhole('limit', limit);
}

export function checkBoundaryCount(count: number): void {
  if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`count must be an integer >= 1, got ${count}`);
}

/**
 * streamBoundaries for every store: the stream ids at the events that cut the log into `count` equal runs
 * in stream order (`nth`: the stream id of the n-th event in that order, from 0), each kept once. A stream
 * that holds a cut goes whole to the range it starts.
 */
export async function boundaries(count: number, events: number, nth: (n: number) => string | Promise<string>): Promise<string[]> {
  const ids: string[] = [];
  for (let k = 1; k < count && events > 0; k++) {
    const id = await nth(Math.floor((k * events) / count));
    if (ids.length === 0 || id !== ids[ids.length - 1]) ids.push(id);
  }
  return ids;
}
