/**
 * One gzip member (RFC 1952) made of pieces compressed apart, so that a large answer changed in one place
 * is compressed again only there. Each piece is raw deflate ending in a full flush: byte-aligned, no final
 * block, no reference to what came before it, so that pieces compressed separately follow each other as
 * one deflate stream. The member is the gzip header, the pieces in order, an empty final block, and the
 * trailer (CRC-32 and length of the whole text). Any gzip reader reads it as one ordinary member.
 */
import { constants, crc32, deflateRaw, deflateRawSync } from 'node:zlib';
import { promisify } from 'node:util';

const deflate = promisify(deflateRaw);
const PIECE = { finishFlush: constants.Z_FULL_FLUSH };

/** ID1 ID2, CM = deflate, no flags, no time, no extra flags, OS unknown. */
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff]);
/** A final fixed-Huffman block holding only its end-of-block code. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/** A piece of text with its compressed form, as gzipMember takes it. */
export interface DeflatedPiece {
  text: Buffer;
  deflated: Buffer;
}

/** `text` as a piece: compressed off the event loop. */
export async function deflatePiece(text: Buffer): Promise<DeflatedPiece> {
  return { text, deflated: await deflate(text, PIECE) };
}

/** `text` as a piece, compressed now: for short constant texts. */
export function deflatePieceNow(text: Buffer): DeflatedPiece {
  return { text, deflated: deflateRawSync(text, PIECE) };
}

/** The gzip member of the pieces' texts joined, as buffers to send one after the other, and its length. */
export function gzipMember(pieces: readonly DeflatedPiece[]): { buffers: Buffer[]; length: number } {
  let crc = 0;
  let size = 0;
  const buffers: Buffer[] = [HEADER];
  let length = HEADER.length + FINAL_BLOCK.length + 8;
  for (const piece of pieces) {
    // An empty text changes nothing; and once compressed asynchronously, Node 20's crc32 answers 0 for it
    // rather than the running value.
    if (piece.text.length > 0) crc = crc32(piece.text, crc);
    size += piece.text.length;
    buffers.push(piece.deflated);
    length += piece.deflated.length;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size % 2 ** 32, 4);
  buffers.push(FINAL_BLOCK, trailer);
  return { buffers, length };
}
