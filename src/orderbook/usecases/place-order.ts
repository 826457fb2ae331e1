/**
 * POST /api/v1/orders: the new order's UID. Takes the seed's OrderCreation and today's (appData as the
 * document or the hash, appDataHash, quoteId; fields it does not know are ignored). The body is validated
 * (on the validation workers when there are some), the facts the decision needs are gathered
 * (order-facts.ts), and the order decider decides; an order sent with its app data document appends
 * AppDataRegistered (unless the document is known) in the same append as OrderCreated, so a refused order
 * leaves no event. Answers once the read models show the order, so the client reads its own write.
 */
import { normalizeOrderBody, ZERO_APP_DATA } from '../domain/app-data.js';
import { validateOrderCreation } from '../domain/order.js';
import { orderStreamId } from '../write/events.js';
import { orderDecider } from '../write/decider.js';
import { appDataDecider } from '../write/register-app-data.js';
import { appDataStreamId } from '../write/book-events.js';
import { decision, handleAll, type Decision } from '../write/command-handler.js';
import type { CreateOrder } from '../write/create-order.js';
import { gatherOrderFacts } from './order-facts.js';
import { appDataDocument } from './queries/app-data.js';
import { isoNow, nowOf, readYourWrites, type Book } from './book.js';

export async function placeOrder(
  book: Pick<Book, 'events' | 'runner' | 'chain' | 'quoteStore' | 'config' | 'validator' | 'clock' | 'domainSeparator'>,
  raw: unknown,
): Promise<string> {
  const { config, validator } = book;
  const { body, fullAppData, quoteId } = normalizeOrderBody(raw);
  const now = nowOf(book);
  const context = { domainSeparator: book.domainSeparator, now, minValidToSeconds: config.minValidToSeconds };
  const order = validator ? await validator.validate(body, context) : validateOrderCreation(body, context);
  const facts = await gatherOrderFacts(book, order, quoteId);
  const creationDate = isoNow(book);
  const decisions: Decision[] = [];
  if (fullAppData !== null) {
    const registeredAt = creationDate;
    decisions.push(decision(appDataDecider, appDataStreamId(order.appData), { type: 'RegisterAppData', data: { hash: order.appData, fullAppData, registeredAt } }));
  }
  const command: CreateOrder = {
    type: 'CreateOrder',
    data: {
      order,
      creationDate,
      now,
      rules: {
        maxMarketSeconds: config.maxMarketOrderValiditySeconds,
        maxLimitSeconds: config.maxLimitOrderValiditySeconds,
        feeRatioBps: config.feeRatioBps,
      },
      facts,
      // The zero app data (what the seed's clients sign) names no document, so orders carrying it cost no read.
      fullAppData: fullAppData ?? (order.appData === ZERO_APP_DATA ? null : await appDataDocument(book, order.appData)),
    },
  };
  // A new order's stream is almost always empty: decided without reading it (the append checks).
  decisions.push(decision(orderDecider, orderStreamId(order.uid), command, { fresh: true }));
  const { position } = await handleAll(book.events, decisions);
  await readYourWrites(book, position);
  return order.uid;
}
