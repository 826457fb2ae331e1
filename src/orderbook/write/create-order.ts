/**
 * CreateOrder: an order that passed validation (domain/order.ts) enters the book, once per UID.
 */
import type { ValidatedOrder } from '../domain/order.js';
import { orderbookErrors } from '../domain/errors.js';
import { EVENT_SCHEMA_VERSION, type OrderCreated } from './events.js';
import type { OrderState } from './order-state.js';
import type { OrderCreatedData } from './events.js';

/** What today's API records with an order: its app data document, the quote it names, its class. */
export type OrderExtras = Pick<OrderCreatedData, 'fullAppData' | 'quoteId' | 'quote' | 'class'>;

export interface CreateOrder {
  type: 'CreateOrder';
  data: {
    order: ValidatedOrder;
    /** ISO 8601 UTC time the book accepted it. */
    creationDate: string;
    /** Today's API only; the seed's orders have none (and their events stay as they were). */
    extras?: OrderExtras;
  };
}

/** OrderCreated, or DuplicatedOrder when the stream already has one. */
export function decideCreateOrder(command: CreateOrder, state: OrderState): OrderCreated[] {
  if (state.order) throw orderbookErrors.duplicatedOrder();
  const { order, creationDate, extras } = command.data;
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
        ...definedOnly(extras),
      },
    },
  ];
}

function definedOnly(extras: OrderExtras | undefined): OrderExtras {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(extras ?? {})) if (value !== undefined) out[key] = value;
  return out as OrderExtras;
}
