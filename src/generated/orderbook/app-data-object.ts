/* Generated from schemas/orderbook/app-data-object.schema.json by `npm run gen:types`. Do not edit. */

/**
 * The body of PUT /api/v1/app_data[/{hash}] and the answer of GET /api/v1/app_data/{hash}: the full app data, a JSON document as a string (its keccak256 is the hash orders sign).
 */
export interface AppDataObject {
  fullAppData: string;
}
