/**
 * The facts a decision on a new order needs, gathered before it from the chain and the quote store: the
 * quote it names, the owner contract's EIP-1271 verdict, the sell token's minimal fee, and what the owner
 * can spend. Only those the order needs are asked for (write/create-order.ts factsNeeded); the decider
 * (decideCreateOrder) makes every refusal from them.
 */
import type { ValidatedOrder } from '../domain/order.js';
import { canFund } from '../domain/order.js';
import { factsNeeded, type OrderFacts } from '../write/create-order.js';
import type { Book } from './book.js';

export async function gatherOrderFacts(
  book: Pick<Book, 'chain' | 'quoteStore' | 'clock'>,
  order: ValidatedOrder,
  quoteId: number | null,
): Promise<OrderFacts> {
  const { chain } = book;
  const needed = factsNeeded(order);
  const facts: OrderFacts = {};
  if (quoteId !== null) facts.quote = { id: quoteId, found: await book.quoteStore.find(quoteId, new Date(book.clock())) };
  if (needed.eip1271) facts.eip1271Valid = await chain.eip1271(order.owner, order.digest, order.signature);
  if (needed.minimalFee) facts.minimalFee = await chain.fees.minimalFee(order.sellToken);
  if (needed.spendable) {
    // An amount read at the newest head the head source reported is the fact at once when it funds the
    // order. One that does not is read again at the node's newest block, and that is the fact the decider
    // gets: the owner may have been funded in a block not reported yet.
    const atHead = chain.balances.atHead(order.owner, order.sellToken);
    facts.spendable = atHead !== undefined && canFund(order, atHead) ? atHead : await chain.balances.fetch(order.owner, order.sellToken);
    // Read with it, kept in memory: tells a short allowance from a short balance without a call.
    const funds = chain.balances.funds?.(order.owner, order.sellToken);
    if (funds) facts.funds = funds;
  }
  return facts;
}
