/* Generated from schemas/jsonrpc/request.schema.json by `npm run gen:types`. Do not edit. */

/**
 * A JSON-RPC 2.0 request envelope as the gateway accepts it: params, when present, is an array.
 */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: number | string | null;
  method: string;
  params?: unknown[];
}
