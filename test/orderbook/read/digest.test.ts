/**
 * A document's hash is SHA-256 of its RFC 8785 canonical JSON: held to the RFC's example and, for generated
 * JSON values of every kind (lone surrogates, -0, exponents, keys that sort by UTF-16 code units), to
 * canonicalize, the implementation by one of the RFC's authors.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import canonicalizeModule from 'canonicalize';
import fc from 'fast-check';
import { documentHash } from '../../../src/orderbook/read/digest.js';

const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('document hash', () => {
  it("hashes the RFC 8785 example's canonical form (section 3.2.3)", () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    );
    const canonical = '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}';
    assert.equal(canonicalize(input), canonical);
    assert.equal(documentHash(input), sha256(canonical));
  });

  it('equals SHA-256 of canonicalize for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 }), (value) => {
        assert.equal(documentHash(value), sha256(canonicalize(value)!));
      }),
      { seed: 20261126, numRuns: 3000 },
    );
  });

  it('refuses a value JSON cannot hold instead of hashing it as something else', () => {
    assert.throws(() => documentHash({ amount: 1n }));
    assert.throws(() => documentHash({ at: Number.NaN }));
  });
});
