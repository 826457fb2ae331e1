/**
 * Which open orders their owners can fund: for each (owner, sell token), the spendable amount is allocated
 * to the open orders oldest first (domain/order.ts allocateBalance). An order whose owner's amount is not
 * known yet counts as funded: the book does not hide orders for want of data.
 */
import { allocateBalance, remainingSellAmount } from './domain/order.js';
import type { OrderState } from './commands/order-state.js';

export interface Funding {
  funded: boolean;
  /** What is left of the owner's spendable amount for this order after older orders; null when unknown. */
  available: bigint | null;
}

/** `open` must be oldest first. */
export function fundingOf(
  open: readonly OrderState[],
  spendable: (owner: string, token: string) => bigint | undefined,
): Map<string, Funding> {
  const groups = new Map<string, OrderState[]>();
  for (const state of open) {
    const order = state.order!;
    const key = `${order.owner}:${order.sellToken}`;
    const group = groups.get(key);
    if (group) group.push(state);
    else groups.set(key, [state]);
  }
  const result = new Map<string, Funding>();
  for (const group of groups.values()) {
    const { owner, sellToken } = group[0].order!;
    const amount = spendable(owner, sellToken);
    if (amount === undefined) {
      for (const state of group) result.set(state.order!.uid, { funded: true, available: null });
      continue;
    }
    const claims = group.map((state) => {
      const o = state.order!;
      const remaining = remainingSellAmount(
        { kind: o.kind, sellAmount: BigInt(o.sellAmount), buyAmount: BigInt(o.buyAmount), feeAmount: BigInt(o.feeAmount) },
        state.executed,
      );
      return { uid: o.uid, partiallyFillable: o.partiallyFillable, remaining };
    });
    const funded = allocateBalance(claims, amount);
    let left = amount;
    for (const claim of claims) {
      result.set(claim.uid, { funded: funded.has(claim.uid), available: left });
      if (funded.has(claim.uid)) left -= claim.remaining < left ? claim.remaining : left;
    }
  }
  return result;
}
