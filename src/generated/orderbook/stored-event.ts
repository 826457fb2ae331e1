/* Generated from schemas/orderbook/stored-event.schema.json by `npm run gen:types`. Do not edit. */

/**
 * One event of the log as auditors read it (GET /api/v1/events, GET /api/v1/orders/{UID}/events): its place in the global log and in its stream, its type and data shape version, and its data (see schemas/orderbook/events/).
 */
export interface StoredEventBody {
  position: number;
  streamId: string;
  streamVersion: number;
  type: string;
  schemaVersion: number;
  recordedAt: string;
  data: {};
}
