/* Generated from schemas/orderbook/competition-order-status.schema.json by `npm run gen:types`. Do not edit. */

/**
 * GET /api/v1/orders/{UID}/status. This book runs no solver competition of its own: an open order solvers can settle is active, one they cannot yet (unfunded, presignature pending) open, a fulfilled one traded, a cancelled or expired one cancelled.
 */
export interface CompetitionOrderStatus {
  type: 'open' | 'scheduled' | 'active' | 'solved' | 'executing' | 'traded' | 'cancelled';
  value?: {}[];
}
