/**
 * DELETE /api/v1/orders: cancels up to 128 orders signed together (OrderCancellations), all or nothing.
 * Every order is decided (OrderNotFound 404, WrongOwner 401, AlreadyCancelled, ...; the first refusal is
 * the answer) and the OrderCancelled events of all of them are appended in one multi-stream append, each
 * stream at the version it was decided on. A trade or cancellation that reaches one of the orders in
 * between makes the whole append fail: every order is then decided again, so the answer is either all
 * cancelled or a refusal with nothing appended.
 */
import { verifyCancellations } from '../domain/cancellation.js';
import { decision, handleAll } from '../write/command-handler.js';
import { orderDecider } from '../write/decider.js';
import { orderStreamId } from '../write/events.js';
import { isoNow, readYourWrites, type Book } from './book.js';

export async function cancelOrders(book: Pick<Book, 'events' | 'runner' | 'clock' | 'domainSeparator'>, body: unknown): Promise<void> {
  const { uids, cancellation } = verifyCancellations(body, book.domainSeparator);
  const cancelledAt = isoNow(book);
  const { position } = await handleAll(
    book.events,
    uids.map((uid) => decision(orderDecider, orderStreamId(uid), { type: 'CancelOrder', data: { uid, cancellation, cancelledAt, bulk: true } })),
  );
  await readYourWrites(book, position);
}
