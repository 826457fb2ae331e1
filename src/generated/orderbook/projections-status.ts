/* Generated from schemas/orderbook/projections-status.schema.json by `npm run gen:types`. Do not edit. */

/**
 * The body of GET /api/v1/projections: the log's head and, per read model, its checkpoint, document count and SHA-256 digest (RFC 8785 JSON of every document in key order), to compare with `npm run replay`.
 */
export interface ProjectionsStatus {
  head: number;
  projections: {
    [k: string]: ProjectionStatus;
  };
}
export interface ProjectionStatus {
  version: number;
  position: number;
  documents: number;
  sha256: string;
}
