/**
 * The parts the solvable orders answer is kept in (src/orderbook/read/, and its ETag's set hash in
 * src/orderbook/api/encoding/): the segmented list against a sorted array, the heap against sorting, and
 * the set hash against the set it hashes, each over generated sequences.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SegmentedList, type Segment } from '../../../src/orderbook/read/segmented-list.js';
import { IndexedHeap } from '../../../src/orderbook/read/indexed-heap.js';
import { SetHash } from '../../../src/orderbook/api/encoding/set-hash.js';

interface Item {
  key: number;
  segment?: Segment<Item, string>;
  heapIndex?: number;
}

/** Inserting key k when absent, removing it when present. */
const toggles = fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 300 });

describe('solvable answer parts', () => {
  it('segmented list: the items in order, segments between 1 and the maximum, each item pointing at its segment', () => {
    fc.assert(
      fc.property(toggles, fc.integer({ min: 2, max: 9 }), (keys, maxSize) => {
        const list = new SegmentedList<Item, string>((a, b) => a.key - b.key, maxSize);
        const present = new Map<number, Item>();
        for (const key of keys) {
          const known = present.get(key);
          if (known) {
            list.remove(known);
            present.delete(key);
            assert.equal(known.segment, undefined);
          } else {
            const item = { key };
            list.insert(item);
            present.set(key, item);
          }
          // Every change drops the encoding of the segment it touched.
          for (const segment of list.segments) segment.encoded ??= 'encoded';
        }
        assert.deepEqual([...list].map((i) => i.key), [...present.keys()].sort((a, b) => a - b));
        assert.equal(list.size, present.size);
        for (const segment of list.segments) {
          assert.ok(segment.items.length >= 1 && segment.items.length <= maxSize, `segment of ${segment.items.length}`);
          for (const item of segment.items) assert.equal(item.segment, segment);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('segmented list: a change drops the encoding of its segment only', () => {
    const list = new SegmentedList<Item, string>((a, b) => a.key - b.key, 4);
    const items: Item[] = Array.from({ length: 12 }, (_, key) => ({ key }));
    for (const item of items) list.insert(item);
    for (const segment of list.segments) segment.encoded = 'encoded';
    list.touch(items[5]);
    assert.deepEqual(
      list.segments.map((s) => s.encoded),
      list.segments.map((s) => (s === items[5].segment ? undefined : 'encoded')),
    );
  });

  it('heap: pops in key order, whatever was removed from it', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.boolean()), { maxLength: 200 }), (ops) => {
        const heap = new IndexedHeap<Item>((i) => i.key);
        const kept: Item[] = [];
        for (const [key, removeOne] of ops) {
          if (removeOne && kept.length > 0) heap.remove(kept.splice(key % kept.length, 1)[0]);
          else {
            const item = { key };
            heap.push(item);
            kept.push(item);
          }
        }
        assert.equal(heap.size, kept.length);
        const popped: number[] = [];
        for (let item = heap.pop(); item; item = heap.pop()) popped.push(item.key);
        assert.deepEqual(popped, kept.map((i) => i.key).sort((a, b) => a - b));
      }),
      { numRuns: 300 },
    );
  });

  it('set hash: the same set gives the same digest whatever the order and history; another set another', () => {
    const element = fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b));
    fc.assert(
      fc.property(fc.uniqueArray(element, { selector: (b) => b.toString('hex'), maxLength: 20 }), fc.array(element, { maxLength: 10 }), (set, transient) => {
        const a = new SetHash();
        for (const e of set) a.add(e);
        const b = new SetHash();
        for (const e of transient) b.add(e);
        for (const e of [...set].reverse()) b.add(e);
        for (const e of transient) b.remove(e);
        assert.deepEqual(a.digest(), b.digest());
        if (set.length > 0) {
          const c = new SetHash();
          for (const e of set.slice(1)) c.add(e);
          assert.notDeepEqual(c.digest(), a.digest());
        }
      }),
      { numRuns: 200 },
    );
  });
});
