import assert from 'node:assert/strict';
import {
  appendBlocks,
  findForkPoint,
  initialCheckpoint,
  linkedCount,
  ReorgTooDeepError,
  rollBack,
  tipOf,
  type FollowerCheckpoint,
  type RecentBlock,
} from '../../../src/orderbook/chain/reorg.js';
import type { RawLog } from '../../../src/orderbook/chain/settlement-events.js';

const h = (n: number, fork = 'a') => `0x${fork.repeat(2)}${n.toString(16).padStart(62, '0')}`;
const log = (n: number, fork = 'a') => ({ blockNumber: `0x${n.toString(16)}`, blockHash: h(n, fork) }) as RawLog;
const block = (n: number, fork = 'a', logs: RawLog[] | null = [log(n, fork)]): RecentBlock => ({ number: n, hash: h(n, fork), logs });
const checkpoint = (recent: RecentBlock[]): FollowerCheckpoint => ({
  blockNumber: recent.at(-1)!.number,
  blockHash: recent.at(-1)!.hash,
  recent,
});

describe('reorg bookkeeping (pure)', () => {
  it('starts from an anchor below the first block, with no hash to check', () => {
    assert.deepEqual(initialCheckpoint(0), { blockNumber: -1, blockHash: null, recent: [{ number: -1, hash: null, logs: [] }] });
    assert.equal(initialCheckpoint(100).blockNumber, 99);
    assert.throws(() => initialCheckpoint(-1), /fromBlock/);
    assert.throws(() => tipOf({ blockNumber: 5, blockHash: h(5), recent: [block(4)] }), /inconsistent/);
  });

  it('finds the newest remembered block that is still on the chain', () => {
    const recent = [block(10), block(11), block(12), block(13)];
    const canonical = (entries: [number, string | null][]) => new Map(entries);
    assert.equal(findForkPoint(recent, canonical([[10, h(10)], [11, h(11)], [12, h(12, 'b')], [13, h(13, 'b')]])), 1);
    // The chain got shorter: no block at 12 and 13 any more.
    assert.equal(findForkPoint(recent, canonical([[10, h(10)], [11, h(11)], [12, null], [13, null]])), 1);
    assert.equal(findForkPoint(recent, canonical([[10, h(10, 'b')], [11, h(11, 'b')], [12, h(12, 'b')], [13, h(13, 'b')]])), -1);
    // The anchor of a fresh start always holds.
    assert.equal(findForkPoint([{ number: 9, hash: null, logs: [] }, ...recent], canonical([])), 0);
  });

  it('rolls back above the fork point and returns the removed blocks with their logs', () => {
    const cp = checkpoint([block(10), block(11), block(12), block(13)]);
    const { checkpoint: back, removed } = rollBack(cp, 1);
    assert.deepEqual(back, checkpoint([block(10), block(11)]));
    assert.deepEqual(removed, [block(12), block(13)]);
  });

  it('refuses a reorganisation deeper than what is remembered, or through a block read as final', () => {
    const cp = checkpoint([block(10, 'a', null), block(11), block(12)]);
    assert.throws(() => rollBack(cp, -1), ReorgTooDeepError);
    assert.throws(() => rollBack(cp, -1), /below block 10/);
    assert.deepEqual(rollBack(cp, 0).removed, [block(11), block(12)]);
    const withFinal = checkpoint([block(5), block(10, 'a', null), block(11)]);
    assert.throws(() => rollBack(withFinal, 0), /removes block 10, which was read as final/);
  });

  it('counts how many new headers link onto the tip through their parent hashes', () => {
    const header = (n: number, fork = 'a', parentFork = fork) => ({ number: n, hash: h(n, fork), parentHash: h(n - 1, parentFork) });
    const tip = { number: 12, hash: h(12) };
    assert.equal(linkedCount(tip, [header(13), header(14), header(15)]), 3);
    assert.equal(linkedCount(tip, [header(13, 'b')]), 0); // parent is 12 of another fork
    assert.equal(linkedCount(tip, [header(13), header(14, 'b', 'b')]), 1);
    assert.equal(linkedCount(tip, [header(13), null, header(15)]), 1);
    assert.equal(linkedCount(tip, [header(14)]), 0); // a gap
    assert.equal(linkedCount({ number: -1, hash: null }, [{ number: 0, hash: h(0), parentHash: '0x00' }]), 1);
  });

  it('appends processed blocks and forgets those beyond the window', () => {
    const cp = checkpoint([block(10), block(11)]);
    const next = appendBlocks(cp, [block(12), block(13), block(14)], 2);
    assert.deepEqual(next, checkpoint([block(12), block(13), block(14)]));
    assert.equal(appendBlocks(cp, [], 2), cp);
    // JSON round trip: a checkpoint is plain data.
    assert.deepEqual(JSON.parse(JSON.stringify(next)), next);
  });
});
