/** The nesting bound every body, frame and JSON query value passes before it is parsed (src/http/json-depth.ts). */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { jsonDepthWithin } from '../../src/http/json-depth.js';

/** The nesting depth of a parsed value, the way the bound counts it. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + children.reduce<number>((deepest, child) => Math.max(deepest, depthOf(child)), 0);
}

describe('JSON nesting bound', () => {
  it('agrees with the depth of the parsed value for generated JSON, as text and as bytes', () => {
    fc.assert(
      fc.property(fc.json({ depthSize: 'large', maxDepth: 12 }), fc.integer({ min: 1, max: 14 }), (text, limit) => {
        const expected = depthOf(JSON.parse(text)) <= limit;
        assert.equal(jsonDepthWithin(text, limit), expected, text);
        assert.equal(jsonDepthWithin(Buffer.from(text), limit), expected, text);
      }),
      { seed: 20261123, numRuns: 2000 },
    );
  });

  it('skips brackets inside strings, escaped quotes included', () => {
    const inString = JSON.stringify({ a: '[[[[{{{{\\"[[[[' + '['.repeat(100) });
    assert.equal(jsonDepthWithin(inString, 1), true);
    assert.equal(jsonDepthWithin('[' + inString + ']', 1), false);
    assert.equal(jsonDepthWithin('["\\\\", [[1]]]', 2), false, 'an escaped backslash ends the escape');
    assert.equal(jsonDepthWithin('["\\\\", [[1]]]', 3), true);
  });

  it('refuses 5,000 levels in one pass without recursion', () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    assert.equal(jsonDepthWithin(deep, 64), false);
    assert.equal(jsonDepthWithin('{"a":'.repeat(65) + '1' + '}'.repeat(65), 64), false);
    assert.equal(jsonDepthWithin('{"a":'.repeat(64) + '1' + '}'.repeat(64), 64), true);
  });
});
