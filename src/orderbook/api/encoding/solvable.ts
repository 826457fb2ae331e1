/**
 * The solvable orders view's encoding (read/solvable-encoding.ts declares what the view needs): orders as
 * solvable_orders and the auction write them (JSON), segments' texts compressed apart into one gzip member
 * (gzip-pieces.ts), and the ETag as a hash of the set of the orders' bytes (set-hash.ts). The view caches
 * what this makes and asks again only for what changed.
 */
import type { OrderSetHash, Pieces, SolvableEncoding } from '../../read/solvable-encoding.js';
import { presentOrder } from '../present-order.js';
import { auctionOrder } from './auction-order.js';
import { deflatePiece, deflatePieceNow, gzipMember, type DeflatedPiece } from './gzip-pieces.js';
import { SetHash } from './set-hash.js';

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/** '[', ',' and ']' as pieces, compressed once, when first needed. */
let punctuation: { open: DeflatedPiece; comma: DeflatedPiece; close: DeflatedPiece } | undefined;
const punctuationPieces = () => (punctuation ??= { open: deflatePieceNow(OPEN), comma: deflatePieceNow(COMMA), close: deflatePieceNow(CLOSE) });

/** The items with a comma between each two. */
function separated<T>(items: readonly T[], comma: T): T[] {
  const parts: T[] = [];
  for (const item of items) {
    if (parts.length > 0) parts.push(comma);
    parts.push(item);
  }
  return parts;
}

/** A JSON array of items written apart: its opening, its items separated by its comma, its closing. */
const asArray = <T>(items: readonly T[], open: T, comma: T, close: T): T[] => [open, ...separated(items, comma), close];

const asPieces = (buffers: Buffer[]): Pieces => ({ buffers, length: buffers.reduce((sum, buffer) => sum + buffer.length, 0) });

/** A hash of the set of orders' bytes; its ETag is the digest's first 27 base64url characters, quoted. */
function orderSet(): OrderSetHash {
  const set = new SetHash();
  return {
    add: (bytes) => set.add(bytes),
    remove: (bytes) => set.remove(bytes),
    etag: () => `"${set.digest().toString('base64url').slice(0, 27)}"`,
  };
}

/** The encoding for a book whose settlement contract (lowercase) every order shows. */
export function solvableEncoding(settlement: string): SolvableEncoding<DeflatedPiece> {
  return {
    order: (state, now, availableBalance) => Buffer.from(JSON.stringify(presentOrder(state, now, settlement, availableBalance)!)),
    // The auction form has no field that depends on the time or the balance.
    auctionOrder: (state) => Buffer.from(JSON.stringify(auctionOrder(presentOrder(state, 0, settlement)!))),
    join: (items) => Buffer.concat(separated(items, COMMA)),
    array: (texts) => asPieces(asArray(texts, OPEN, COMMA, CLOSE)),
    compress: deflatePiece,
    compressedArray: (pieces) => {
      const { open, comma, close } = punctuationPieces();
      return gzipMember(asArray(pieces, open, comma, close));
    },
    orderSet,
  };
}
