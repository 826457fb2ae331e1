/**
 * CancelOrder: the owner's signed OrderCancellation marks the order cancelled at a time. The checks and
 * their order are CoW's: the order must exist (OrderNotFound, 404), be cancellable off-chain (OnChainOrder
 * for presign and eip1271 orders), not be fulfilled, cancelled or expired already, and the cancellation
 * must be signed by the owner (WrongOwner, 401).
 */
import { orderbookErrors } from '../domain/errors.js';
import type { SignedCancellation } from '../domain/cancellation.js';
import { EVENT_SCHEMA_VERSION, type OrderCancelled } from './events.js';
import { status, type OrderState } from './order-state.js';

export interface CancelOrder {
  type: 'CancelOrder';
  data: {
    uid: string;
    /** The verified cancellation body, with its recovered signer (domain/cancellation.ts). */
    cancellation: SignedCancellation;
    /** ISO 8601 UTC time of the cancellation; also the "now" of the expiry check. */
    cancelledAt: string;
    /** Part of a bulk cancellation (DELETE /api/v1/orders): the signature is of OrderCancellations. */
    bulk?: boolean;
  };
}

export function decideCancelOrder(command: CancelOrder, state: OrderState): OrderCancelled[] {
  const { uid, cancellation, cancelledAt, bulk } = command.data;
  const order = state.order;
  if (!order) throw orderbookErrors.orderNotFound();
  const now = Math.floor(Date.parse(cancelledAt) / 1000);
  switch (status(state, now)) {
    case 'presignaturePending':
      throw orderbookErrors.onChainOrder();
    case 'fulfilled':
      throw orderbookErrors.orderFullyExecuted();
    case 'cancelled':
      throw orderbookErrors.alreadyCancelled();
    case 'expired':
      throw orderbookErrors.orderExpired();
    case 'open':
      if (order.signingScheme !== 'eip712' && order.signingScheme !== 'ethsign') throw orderbookErrors.onChainOrder();
  }
  if (cancellation.signer !== order.owner) throw orderbookErrors.cancellationWrongOwner();
  return [
    {
      type: 'OrderCancelled',
      schemaVersion: EVENT_SCHEMA_VERSION,
      data: {
        uid: uid.toLowerCase(),
        cancelledAt,
        signingScheme: cancellation.signingScheme,
        signature: cancellation.signature,
        ...(bulk ? { bulk: true } : {}),
      },
    },
  ];
}
