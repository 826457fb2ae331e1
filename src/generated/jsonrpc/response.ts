/* Generated from schemas/jsonrpc/response.schema.json by `npm run gen:types`. Do not edit. */

/**
 * A JSON-RPC 2.0 response envelope: exactly one of result and error.
 */
export interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: unknown;
  error?: JsonRpcErrorObject;
}
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}
