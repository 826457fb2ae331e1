/* Generated from schemas/orderbook/total-surplus.schema.json by `npm run gen:types`. Do not edit. */

/**
 * GET /api/v1/users/{address}/total_surplus: the surplus of the user's trades over their limit prices, in native token atoms (trades of unpriceable tokens count 0).
 */
export interface TotalSurplus {
  totalSurplus: string;
}
