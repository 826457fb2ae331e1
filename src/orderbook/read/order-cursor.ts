/**
 * The cursor of GET /api/v1/orders: where the next page starts, as the (creation time, UID) of the last
 * order the previous page read, the listing's order. A keyset, not an offset: the next page is an index
 * seek however deep it is, and orders that change state or arrive meanwhile neither shift nor repeat the
 * pages (new orders are the newest, so they come last). Opaque to clients (base64url of the two values), and
 * checked when it comes back: anything else is refused, never passed on to a query. Pure.
 */
export interface OrderCursor {
  createdAt: string;
  uid: string;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z$/;
const UID = /^0x[0-9a-f]{112}$/;

export function encodeOrderCursor(cursor: OrderCursor): string {
  return Buffer.from(`${cursor.createdAt} ${cursor.uid}`, 'utf8').toString('base64url');
}

/** The cursor `text` stands for, or null when it is not one encodeOrderCursor gives. */
export function decodeOrderCursor(text: string): OrderCursor | null {
  const [createdAt, uid, ...rest] = Buffer.from(text, 'base64url').toString('utf8').split(' ');
  if (rest.length > 0 || !ISO.test(createdAt ?? '') || !UID.test(uid ?? '')) return null;
  return { createdAt, uid };
}
