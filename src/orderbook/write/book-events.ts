/**
 * The order book's events outside order streams, from today's CoW API:
 * - AppDataRegistered, the only event of stream `app-data-<hash>`: a full app data document became known
 *   (PUT /api/v1/app_data, or an order sent with the document). Documents are immutable, so the stream's
 *   expected version 0 is the whole decision: a second registration of the same document appends nothing.
 * - QuoteIssued, the only event of stream `quote-<random>`: POST /api/v1/quote priced an order (the quote's
 *   id was the event's global position). Older versions appended it; quotes now live in the quote store
 *   (store/quote-store.ts) and nothing appends it. Logs that hold it are still read and replayed (no read
 *   model takes it in), and tests write it to build such logs.
 * Like the order events (events.ts): `{type, schemaVersion, data}` with data checked against
 * schemas/orderbook/events/ before it is appended.
 */
import type { NewEvent } from '../store/types.js';
import type { AppDataRegisteredData } from '../../generated/orderbook/events/app-data-registered.js';
import type { QuoteIssuedData } from '../../generated/orderbook/events/quote-issued.js';
import { validator } from '../../shared/schemas.js';
import { EVENT_SCHEMA_VERSION } from './events.js';

export type { AppDataRegisteredData, QuoteIssuedData };

export type AppDataRegistered = NewEvent<'AppDataRegistered', AppDataRegisteredData> & { schemaVersion: typeof EVENT_SCHEMA_VERSION };
export type QuoteIssued = NewEvent<'QuoteIssued', QuoteIssuedData> & { schemaVersion: typeof EVENT_SCHEMA_VERSION };

const SCHEMAS = {
  AppDataRegistered: 'orderbook/events/app-data-registered.schema.json',
  QuoteIssued: 'orderbook/events/quote-issued.schema.json',
} as const;

export function appDataStreamId(hash: string): string {
  return `app-data-${hash.toLowerCase()}`;
}

export function quoteStreamId(key: string): string {
  return `quote-${key}`;
}

function checked<E extends AppDataRegistered | QuoteIssued>(event: E): E {
  const validate = validator(SCHEMAS[event.type]);
  if (!validate(event.data)) {
    throw new Error(`${event.type} data does not match ${SCHEMAS[event.type]}: ${JSON.stringify(validate.errors?.[0])}`);
  }
  return event;
}

export function appDataRegistered(data: AppDataRegisteredData): AppDataRegistered {
  return checked({ type: 'AppDataRegistered', schemaVersion: EVENT_SCHEMA_VERSION, data });
}

export function quoteIssued(data: QuoteIssuedData): QuoteIssued {
  return checked({ type: 'QuoteIssued', schemaVersion: EVENT_SCHEMA_VERSION, data });
}
