/* Generated from schemas/orderbook/events/app-data-registered.schema.json by `npm run gen:types`. Do not edit. */

/**
 * Data of AppDataRegistered (schemaVersion 1), the only event of stream app-data-<hash>: a full app data document became known. hash is keccak256 of the UTF-8 bytes of fullAppData; documents are immutable.
 */
export interface AppDataRegisteredData {
  hash: string;
  fullAppData: string;
  registeredAt: string;
}
