/* Generated from schemas/orderbook/replay-verification.schema.json by `npm run gen:types`. Do not edit. */

/**
 * The body of POST /api/v1/projections/replay: every read model rebuilt in memory from position 0 up to `position` (what `npm run replay` does), and per read model whether its digest equals the live one at that position.
 */
export interface ReplayVerification {
  /**
   * The log position both sides were compared at.
   */
  position: number;
  /**
   * Events the replay read.
   */
  events: number;
  seconds: number;
  /**
   * Every read model's replayed digest equals its live one.
   */
  matches: boolean;
  projections: {
    [k: string]: DigestComparison;
  };
}
export interface DigestComparison {
  live: Digest;
  replay: Digest;
  matches: boolean;
}
export interface Digest {
  position: number;
  documents: number;
  sha256: string;
}
