/**
 * The long JSON answers written in pieces (src/orderbook/api/json-pieces.ts): for any array, the pieces
 * joined are byte for byte JSON.stringify of the whole, their length is the sum of theirs, and each piece
 * holds at most ITEMS_PER_TURN items.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ITEMS_PER_TURN, jsonArrayPieces } from '../../../src/orderbook/api/json-pieces.js';

describe('JSON arrays in pieces', () => {
  it('joined, the pieces are JSON.stringify of the array, whatever its length and items', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.array(fc.jsonValue(), { maxLength: 5 }), fc.array(fc.jsonValue({ maxDepth: 1 }), { minLength: 95, maxLength: 350 })),
        async (items) => {
          const { buffers, length } = await jsonArrayPieces(items);
          const joined = Buffer.concat(buffers);
          assert.equal(joined.toString(), JSON.stringify(items));
          assert.equal(length, joined.length);
          assert.equal(buffers.length, Math.max(1, Math.ceil(items.length / ITEMS_PER_TURN)));
        },
      ),
      { numRuns: 150 },
    );
  });
});
