/**
 * One gzip member (RFC 1952) made of pieces compressed apart, so that a large answer changed in one place
 * is compressed again only there. Each piece is raw deflate ending in a full flush: byte-aligned, no final
 * block, no reference to what came before it, so that pieces compressed separately follow each other as
 * one deflate stream. The member is the gzip header, the pieces in order, an empty final block, and the
 * trailer (CRC-32 and length of the whole text). Any gzip reader reads it as one ordinary member.
 *
 * Each piece carries the CRC-32 of its text, taken when it is made; the member's CRC-32 is combined from
 * them (crc32-combine.ts), so that making the member costs the number of pieces, not the text's length.
 */
import { constants, crc32, deflateRaw, deflateRawSync } from 'node:zlib';
import { promisify } from 'node:util';
import { crc32Combine } from './crc32-combine.js';

const deflate = promisify(deflateRaw);
const PIECE = { finishFlush: constants.Z_FULL_FLUSH };

/** ID1 ID2, CM = deflate, no flags, no time, no extra flags, OS unknown. */
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff]);
/** A final fixed-Huffman block holding only its end-of-block code. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/** A piece of text with its compressed form, as gzipMember takes it. */
export interface DeflatedPiece {
  /** Length of the text in bytes. */
  size: number;
  /** CRC-32 of the text. */
  crc: number;
  deflated: Buffer;
}

/** CRC-32 of `text`; Node 20's crc32 answers 0 for an empty buffer once zlib has run in a worker, so that case is answered here. */
const crcOf = (text: Buffer) => (text.length === 0 ? 0 : crc32(text) >>> 0);

/** `text` as a piece: compressed off the event loop. */
export async function deflatePiece(text: Buffer): Promise<DeflatedPiece> {
  const crc = crcOf(text);
  return { size: text.length, crc, deflated: await deflate(text, PIECE) };
}

/** `text` as a piece, compressed now: for short constant texts. */
export function deflatePieceNow(text: Buffer): DeflatedPiece {
  return { size: text.length, crc: crcOf(text), deflated: deflateRawSync(text, PIECE) };
}

/** The gzip member of the pieces' texts joined, as buffers to send one after the other, and its length. */
export function gzipMember(pieces: readonly DeflatedPiece[]): { buffers: Buffer[]; length: number } {
  let crc = 0;
  let size = 0;
  const buffers: Buffer[] = [HEADER];
  let length = HEADER.length + FINAL_BLOCK.length + 8;
  for (const piece of pieces) {
    if (piece.size > 0) crc = crc32Combine(crc, piece.crc, piece.size);
    size += piece.size;
    buffers.push(piece.deflated);
    length += piece.deflated.length;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size % 2 ** 32, 4);
  buffers.push(FINAL_BLOCK, trailer);
  return { buffers, length };
}
