/**
 * Pieces compressed apart make one gzip member that gzip readers take as any other: Node's zlib over
 * generated pieces (empty ones, long repetitive ones, any bytes), and the gzip command. The member's CRC is
 * combined from the pieces' (crc32Combine, checked against Node's crc32 of the joined bytes).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { crc32, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { deflatePiece, deflatePieceNow, gzipMember } from '../../../src/orderbook/api/encoding/gzip-pieces.js';
import { crc32Combine } from '../../../src/orderbook/api/encoding/crc32-combine.js';

const piece = fc.oneof(
  fc.uint8Array({ maxLength: 2000 }).map((bytes) => Buffer.from(bytes)),
  fc.string({ maxLength: 300 }).map((s) => Buffer.from(s.repeat(20))),
);

describe('gzip member of pieces compressed apart', () => {
  it('reads back as the pieces joined, at the length it states', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 12 }), async (texts) => {
        const member = gzipMember(await Promise.all(texts.map((t) => deflatePiece(t))));
        const bytes = Buffer.concat(member.buffers);
        assert.equal(member.length, bytes.length);
        assert.deepEqual(gunzipSync(bytes), Buffer.concat(texts));
      }),
      { numRuns: 200 },
    );
  });

  it('is read by the gzip command, pieces compressed now or later alike', async () => {
    const texts = ['[', '{"uid":"0x01","sellAmount":"1000"}', ',', '{"uid":"0x02","sellAmount":"2000"}'.repeat(500), ']'].map((t) => Buffer.from(t));
    const pieces = await Promise.all(texts.map((t, i) => (i % 2 === 0 ? deflatePieceNow(t) : deflatePiece(t))));
    const out = execFileSync('gzip', ['-dc'], { input: Buffer.concat(gzipMember(pieces).buffers) });
    assert.deepEqual(out, Buffer.concat(texts));
  });

  it('crc32Combine gives the CRC-32 of the joined bytes', () => {
    const bytes = fc.uint8Array({ maxLength: 3000 }).map((b) => Buffer.from(b));
    fc.assert(
      fc.property(bytes, bytes, (a, b) => {
        const crc = (x: Buffer) => (x.length === 0 ? 0 : crc32(x) >>> 0);
        assert.equal(crc32Combine(crc(a), crc(b), b.length), crc(Buffer.concat([a, b])));
      }),
      { numRuns: 500 },
    );
  });
});
