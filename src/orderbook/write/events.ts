/**
 * The order book's events: one stream per order (`order-<uid>`), every event `{type, schemaVersion, data}`
 * with its data shape in schemas/orderbook/events/. Data is JSON as the wire has it (lowercase addresses
 * and hex, uint256 as decimal strings, ISO 8601 UTC dates), so that the log reads the same in SQLite,
 * PostgreSQL and an auditor's replay.
 *
 * Chain facts (OrderInvalidated, OrderPresigned, PresignatureRevoked, TradeRecorded) carry where the
 * settlement contract's log is (`chain`); a log is identified by (blockHash, logIndex). A chain
 * reorganisation never rewrites the log: ChainEventReverted compensates the removed fact.
 */
import type { NewEvent } from '../store/types.js';
import type { ChainEventRevertedData } from '../../generated/orderbook/events/chain-event-reverted.js';
import type { OrderCancelledData } from '../../generated/orderbook/events/order-cancelled.js';
import type { OrderCreatedData } from '../../generated/orderbook/events/order-created.js';
import type { ChainEventRef, OrderInvalidatedData } from '../../generated/orderbook/events/order-invalidated.js';
import type { OrderPresignedData } from '../../generated/orderbook/events/order-presigned.js';
import type { PresignatureRevokedData } from '../../generated/orderbook/events/presignature-revoked.js';
import type { TradeRecordedData } from '../../generated/orderbook/events/trade-recorded.js';
import { validator } from '../../shared/schemas.js';

export type {
  ChainEventRef,
  ChainEventRevertedData,
  OrderCancelledData,
  OrderCreatedData,
  OrderInvalidatedData,
  OrderPresignedData,
  PresignatureRevokedData,
  TradeRecordedData,
};

/** The current data shape of every event type; older versions would be upcast when read. */
export const EVENT_SCHEMA_VERSION = 1;

interface OrderbookEvent<Type extends string, Data> extends NewEvent<Type, Data> {
  schemaVersion: typeof EVENT_SCHEMA_VERSION;
}

export type OrderCreated = OrderbookEvent<'OrderCreated', OrderCreatedData>;
export type OrderCancelled = OrderbookEvent<'OrderCancelled', OrderCancelledData>;
export type OrderInvalidated = OrderbookEvent<'OrderInvalidated', OrderInvalidatedData>;
export type OrderPresigned = OrderbookEvent<'OrderPresigned', OrderPresignedData>;
export type PresignatureRevoked = OrderbookEvent<'PresignatureRevoked', PresignatureRevokedData>;
export type TradeRecorded = OrderbookEvent<'TradeRecorded', TradeRecordedData>;
export type ChainEventReverted = OrderbookEvent<'ChainEventReverted', ChainEventRevertedData>;

/** Facts from the settlement contract's logs: the events a reorganisation can revert. */
export type ChainEvent = OrderInvalidated | OrderPresigned | PresignatureRevoked | TradeRecorded;
export type OrderEvent = OrderCreated | OrderCancelled | ChainEvent | ChainEventReverted;
export type OrderEventType = OrderEvent['type'];

const SCHEMAS: Record<OrderEventType, string> = {
  OrderCreated: 'orderbook/events/order-created.schema.json',
  OrderCancelled: 'orderbook/events/order-cancelled.schema.json',
  OrderInvalidated: 'orderbook/events/order-invalidated.schema.json',
  OrderPresigned: 'orderbook/events/order-presigned.schema.json',
  PresignatureRevoked: 'orderbook/events/presignature-revoked.schema.json',
  TradeRecorded: 'orderbook/events/trade-recorded.schema.json',
  ChainEventReverted: 'orderbook/events/chain-event-reverted.schema.json',
};

export const ORDER_EVENT_TYPES = Object.keys(SCHEMAS) as OrderEventType[];

/** The stream of one order. */
export function orderStreamId(uid: string): string {
  return `order-${uid.toLowerCase()}`;
}

/** The identity of a chain log: (blockHash, logIndex). */
export function chainEventKey(chain: Pick<ChainEventRef, 'blockHash' | 'logIndex'>): string {
  return `${chain.blockHash.toLowerCase()}:${chain.logIndex}`;
}

/**
 * An event about to be appended, checked against its type, version and data schema: the command handler
 * runs every decided event through it, so the log only ever holds events that match their schemas. Throws
 * an Error otherwise: a decider that produces such an event is a fault, never a client's error.
 */
export function checkOrderEvent(event: NewEvent): OrderEvent {
  const known = parseOrderEvent(event);
  const schema = SCHEMAS[known.type];
  const validate = validator(schema);
  if (!validate(event.data)) {
    throw new Error(`${event.type} data does not match ${schema}: ${JSON.stringify(validate.errors?.[0])}`);
  }
  return known;
}

/**
 * An event read back from the log as an OrderEvent. Its data was checked when it was appended
 * (checkOrderEvent); reading checks that this build knows its type and data version, since projections and
 * replays read every event of the log and a second schema check would double their cost.
 */
export function parseOrderEvent(event: NewEvent): OrderEvent {
  if (!Object.hasOwn(SCHEMAS, event.type)) throw new Error(`unknown order book event type ${event.type}`);
  if (event.schemaVersion !== EVENT_SCHEMA_VERSION) {
    throw new Error(`${event.type} has schemaVersion ${event.schemaVersion}; this build reads ${EVENT_SCHEMA_VERSION}`);
  }
  return { type: event.type, schemaVersion: EVENT_SCHEMA_VERSION, data: event.data } as OrderEvent;
}
