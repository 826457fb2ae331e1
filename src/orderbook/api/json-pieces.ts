/**
 * Long JSON answers (a page of up to a thousand orders, trades or events) written a hundred items at a time
 * with a turn of the event loop between, where one JSON.stringify of the whole page would hold the loop
 * (which the gateway shares) for all of it; and sent as the pieces they were made in, never joined.
 */
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { nextTurn } from '../../shared/next-turn.js';
import type { Pieces } from '../read/solvable-encoding.js';

/** Items encoded per turn of the event loop. */
export const ITEMS_PER_TURN = 100;


/** The JSON array of `items`, ITEMS_PER_TURN items to a piece, a turn of the event loop between pieces. */
export async function jsonArrayPieces(items: readonly unknown[]): Promise<Pieces> {
  if (items.length === 0) return { buffers: [Buffer.from('[]')], length: 2 };
  const buffers: Buffer[] = [];
  let length = 0;
  for (let from = 0; from < items.length; from += ITEMS_PER_TURN) {
    if (from > 0) await nextTurn();
    const text = JSON.stringify(items.slice(from, from + ITEMS_PER_TURN));
    // "[a,b]" of this piece: its items, after "[" or "," and, at the end, before "]".
    const piece = Buffer.from((from === 0 ? '[' : ',') + text.slice(1, -1) + (from + ITEMS_PER_TURN >= items.length ? ']' : ''));
    buffers.push(piece);
    length += piece.length;
  }
  return { buffers, length };
}

/**
 * The buffers as one stream, all handed over at the first read: the socket then writes them together
 * (writev), where Readable.from would hand them one per turn of the event loop.
 */
export function piecesStream(buffers: readonly Buffer[]): Readable {
  return new Readable({
    read() {
      for (const buffer of buffers) this.push(buffer);
      this.push(null);
    },
  });
}

/** Answers `items` as a JSON array written in pieces (jsonArrayPieces). */
export async function sendJsonArray(ctx: Context, items: readonly unknown[]): Promise<void> {
  const { buffers, length } = await jsonArrayPieces(items);
  ctx.type = 'application/json';
  ctx.length = length;
  ctx.body = piecesStream(buffers);
}
