/**
 * Off-chain cancellation: the body of DELETE /api/v1/orders/{UID} and who signed it. The signer is then
 * compared with the order's owner by the CancelOrder decider, which knows the order.
 */
import type { OrderCancellation } from '../../generated/orderbook/order-cancellation.js';
import { validator } from '../../shared/schemas.js';
import { cancellationDigest, cancellationsDigest } from './eip712.js';
import type { OrderCancellations } from '../../generated/orderbook/order-cancellations.js';
import { orderbookErrors } from './errors.js';
import { normalizeEcdsaSignature, recoverEcdsaSigner, type EcdsaSigningScheme } from './signature.js';

export interface SignedCancellation {
  signingScheme: EcdsaSigningScheme;
  /** Lowercase, v normalised to 27/28. */
  signature: string;
  /** Who signed `OrderCancellation(orderUid)` (lowercase). */
  signer: string;
}

const isOrderCancellations = validator<OrderCancellations>('orderbook/order-cancellations.schema.json');
const isOrderCancellation = validator<OrderCancellation>('orderbook/order-cancellation.schema.json');

/**
 * Checks the body against its schema (MissingOrderData/InvalidOrderData, as for orders) and recovers the
 * signer of the cancellation of `orderUid` (InvalidSignature when none).
 */
export function verifyCancellation(body: unknown, domainSeparator: string, orderUid: string): SignedCancellation {
  if (!isOrderCancellation(body)) throw orderbookErrors.fromSchema(isOrderCancellation.errors, 'cancellation');
  return signedBy(body, cancellationDigest(domainSeparator, orderUid), 'cancellation');
}

/** Who signed `digest` with the body's scheme and signature (InvalidSignature when nobody can be recovered). */
function signedBy(body: { signingScheme: EcdsaSigningScheme; signature: string }, digest: string, what: string): SignedCancellation {
  const signature = normalizeEcdsaSignature(body.signature);
  const signer = signature && recoverEcdsaSigner(body.signingScheme, digest, signature);
  if (!signature || !signer) throw orderbookErrors.invalidSignature(`no signer of the ${what} can be recovered`);
  return { signingScheme: body.signingScheme, signature, signer };
}

/**
 * The body of DELETE /api/v1/orders: up to 128 UIDs (lowercase, without repeats) and who signed
 * `OrderCancellations(orderUids)` as sent (InvalidSignature when nobody can be recovered).
 */
export function verifyCancellations(body: unknown, domainSeparator: string): { uids: string[]; cancellation: SignedCancellation } {
  if (!isOrderCancellations(body)) throw orderbookErrors.fromSchema(isOrderCancellations.errors, 'cancellations');
  const cancellation = signedBy(body, cancellationsDigest(domainSeparator, body.orderUids), 'cancellations');
  return { uids: [...new Set(body.orderUids.map((uid) => uid.toLowerCase()))], cancellation };
}
