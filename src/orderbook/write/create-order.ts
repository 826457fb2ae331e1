/**
 * CreateOrder: an order that passed validation (domain/order.ts) enters the book, once per UID. The
 * command carries the chain and quote facts the decision needs, gathered before it by the use case
 * (usecases/place-order.ts; which ones, factsNeeded says), so that every refusal of a valid order is made
 * here, in CoW's order: QuoteNotFound, InvalidQuote, ExcessiveValidTo, InvalidEip1271Signature,
 * InsufficientFee, InsufficientBalance or InsufficientAllowance, then DuplicatedOrder.
 */
import { checkBalance, checkFee, paysSignedFee, type Funds, type ValidatedOrder } from '../domain/order.js';
import { orderbookErrors } from '../domain/errors.js';
import { orderClass } from '../domain/quote.js';
import { checkValidToCap, type ValidityLimits } from '../domain/validity.js';
import type { StoredQuote } from '../store/quote-store.js';
import type { StoredOrderQuote } from '../../generated/orderbook/stored-order-quote.js';
import { EVENT_SCHEMA_VERSION, type OrderCreated } from './events.js';
import type { OrderState } from './order-state.js';
import type { OrderCreatedData } from './events.js';

/** What today's API records with an order: its app data document, the quote it names, its class. */
export type OrderExtras = Pick<OrderCreatedData, 'fullAppData' | 'quoteId' | 'quote' | 'class'>;

/** What the chain and the quote store said about the order; a fact the order does not need is absent. */
export interface OrderFacts {
  /** The quote the order names (by id) and what the quote store holds under it: null when expired or unknown. */
  quote?: { id: number; found: StoredQuote | null };
  /** The owner contract's isValidSignature verdict on the order digest (eip1271 orders). */
  eip1271Valid?: boolean;
  /** The sell token's minimal fee, null when nothing prices the token (orders with a non-zero feeAmount). */
  minimalFee?: bigint | null;
  /** What the owner can spend of the sell token: min(balance, allowance to the vault relayer) (all but presign orders). */
  spendable?: bigint;
  /** The balance and allowance `spendable` is the smaller of, when the read gave them: which is short. */
  funds?: Funds;
}

/** The configured rules an order is held to. */
export interface OrderRules extends ValidityLimits {
  /** A non-zero feeAmount is at least this share of the sell amount (basis points), beside the minimal fee. */
  feeRatioBps: number;
}

export interface CreateOrder {
  type: 'CreateOrder';
  data: {
    order: ValidatedOrder;
    /** ISO 8601 UTC time the book accepted it. */
    creationDate: string;
    /** Now in Unix seconds, for the validity cap. */
    now: number;
    rules: OrderRules;
    facts: OrderFacts;
    /** The app data document the order's appData hash names, when the book knows it (sent with the order or registered). */
    fullAppData: string | null;
  };
}

/** Which facts a decision on `order` needs (the rest is not asked of the chain). */
export function factsNeeded(order: ValidatedOrder): { eip1271: boolean; minimalFee: boolean; spendable: boolean } {
  return {
    eip1271: order.signingScheme === 'eip1271',
    minimalFee: paysSignedFee(order),
    // Presign orders are not held to a balance, as in CoW's order book (checkBalance).
    spendable: order.signingScheme !== 'presign',
  };
}

function required<T>(value: T | undefined, fact: string): T {
  if (value === undefined) throw new Error(`CreateOrder needs the fact ${fact}`);
  return value;
}

/** OrderCreated, or the refusal of the order (see the file's comment for which and in what order). */
export function decideCreateOrder(command: CreateOrder, state: OrderState): OrderCreated[] {
  const { order, creationDate, now, rules, facts, fullAppData } = command.data;
  const needed = factsNeeded(order);
  const quote = facts.quote ? facts.quote.found : null;
  if (facts.quote && !quote) throw orderbookErrors.quoteNotFound(facts.quote.id);
  if (quote && (quote.sellToken !== order.sellToken || quote.buyToken !== order.buyToken || quote.kind !== order.kind)) {
    throw orderbookErrors.invalidQuote(`quote ${quote.id} is for another pair or kind than the order`);
  }
  const quoted = quote && { sellAmount: BigInt(quote.sellAmount), buyAmount: BigInt(quote.buyAmount) };
  const classOf = orderClass(order, quoted);
  checkValidToCap(order, classOf, now, rules);
  if (needed.eip1271 && !required(facts.eip1271Valid, 'eip1271Valid')) throw orderbookErrors.invalidEip1271Signature(order.digest);
  if (needed.minimalFee) {
    const minimalFee = required(facts.minimalFee, 'minimalFee');
    if (minimalFee !== null) checkFee(order, minimalFee, rules.feeRatioBps);
  }
  if (needed.spendable) checkBalance(order, required(facts.spendable, 'spendable'), facts.funds);
  if (state.order) throw orderbookErrors.duplicatedOrder();
  return [
    {
      type: 'OrderCreated',
      schemaVersion: EVENT_SCHEMA_VERSION,
      data: {
        uid: order.uid,
        owner: order.owner,
        creationDate,
        sellToken: order.sellToken,
        buyToken: order.buyToken,
        receiver: order.receiver,
        sellAmount: order.sellAmount.toString(),
        buyAmount: order.buyAmount.toString(),
        validTo: order.validTo,
        appData: order.appData,
        feeAmount: order.feeAmount.toString(),
        kind: order.kind,
        partiallyFillable: order.partiallyFillable,
        sellTokenBalance: order.sellTokenBalance,
        buyTokenBalance: order.buyTokenBalance,
        signingScheme: order.signingScheme,
        signature: order.signature,
        ...extrasOf(fullAppData, quote, classOf),
      },
    },
  ];
}

/** What today's API records with an order (nothing for a seed order without app data or quote). */
function extrasOf(fullAppData: string | null, quote: StoredQuote | null, classOf: 'market' | 'limit'): OrderExtras {
  const extras: OrderExtras = {};
  if (fullAppData !== null) extras.fullAppData = fullAppData;
  if (quote) {
    const stored: StoredOrderQuote = {
      gasAmount: quote.gasAmount,
      gasPrice: quote.gasPrice,
      sellTokenPrice: quote.sellTokenPrice,
      sellAmount: quote.sellAmount,
      buyAmount: quote.buyAmount,
      feeAmount: quote.feeAmount,
      solver: '0x' + '00'.repeat(20),
      verified: false,
    };
    extras.quoteId = quote.id;
    extras.quote = stored;
    extras.class = classOf;
  }
  return extras;
}
