/**
 * DELETE /api/v1/orders/{UID}: the owner's signed OrderCancellation, verified (domain/cancellation.ts) and
 * decided by the order decider (write/cancel-order.ts: OrderNotFound, OnChainOrder, AlreadyCancelled,
 * OrderFullyExecuted, OrderExpired, WrongOwner). Answers once the read models show the cancellation.
 */
import { verifyCancellation } from '../domain/cancellation.js';
import { parseOrderUid } from '../domain/order.js';
import { handle } from '../write/command-handler.js';
import { orderDecider } from '../write/decider.js';
import { orderStreamId } from '../write/events.js';
import { isoNow, readYourWrites, type Book } from './book.js';

export async function cancelOrder(
  book: Pick<Book, 'events' | 'runner' | 'clock' | 'domainSeparator'>,
  uidParam: string,
  body: unknown,
): Promise<void> {
  const uid = parseOrderUid(uidParam);
  const cancellation = verifyCancellation(body, book.domainSeparator, uid);
  const { position } = await handle(book.events, orderDecider, orderStreamId(uid), {
    type: 'CancelOrder',
    data: { uid, cancellation, cancelledAt: isoNow(book) },
  });
  await readYourWrites(book, position);
}
