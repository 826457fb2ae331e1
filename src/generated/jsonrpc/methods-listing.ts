/* Generated from schemas/jsonrpc/methods-listing.schema.json by `npm run gen:types`. Do not edit. */

/**
 * The body of GET /v1/jsonrpc/:network/methods.
 */
export interface MethodsListing {
  get: string[];
  post: string[];
}
