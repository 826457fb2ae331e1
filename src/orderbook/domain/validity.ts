/**
 * How far ahead an order may be valid, as CoW's order book rules it (OrderValidPeriodConfiguration): a
 * market order (priced at or better than its quote) at most `maxMarketSeconds` from now, any other at most
 * `maxLimitSeconds`, a presigned one without limit (its signature is a transaction, whose timing the owner
 * does not fully control). Beyond: ExcessiveValidTo. An order valid until 2106 would otherwise stay in the
 * book, and in every owner's balance reads, for ever. Pure.
 */
import { orderbookErrors } from './errors.js';

export interface ValidityLimits {
  maxMarketSeconds: number;
  maxLimitSeconds: number;
}

export function checkValidToCap(
  order: { validTo: number; signingScheme: string },
  orderClass: 'market' | 'limit',
  now: number,
  limits: ValidityLimits,
): void {
  if (order.signingScheme === 'presign') return;
  const maxValidTo = now + (orderClass === 'market' ? limits.maxMarketSeconds : limits.maxLimitSeconds);
  if (order.validTo > maxValidTo) throw orderbookErrors.excessiveValidTo(maxValidTo, orderClass);
}
