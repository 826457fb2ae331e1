/**
 * Which open orders an owner can fund, without I/O: the spendable amount of each sell token
 * (min(balance, allowance to the vault relayer), see balances.ts) is allocated to the owner's open orders,
 * oldest first.
 *
 * The rule:
 * - An order needs the most sell token its remaining part can still take from the owner, fee included:
 *   - sell order: sellAmount + feeAmount − executedSellAmount (executedSellAmount is the sum of its Trade
 *     events' sellAmount, which includes the fee). For a partially fillable order the contract charges the
 *     fee pro rata and rounds it down, so this is an upper bound of what is left to pay.
 *   - buy order: (sellAmount + feeAmount) × (buyAmount − executedBuyAmount) / buyAmount, rounded up. Its
 *     limit (sellAmount + feeAmount) pays for all of buyAmount; the part already bought needs no more. Any
 *     execution at or better than the limit price takes at most this much (the contract rounds the sell
 *     side and the fee down).
 * - A fill-or-kill order is funded when its whole need fits in what is left of the spendable amount; then
 *   it consumes its need. One that does not fit is not funded and consumes nothing, so a younger, smaller
 *   order may still be funded.
 * - A partially fillable order is funded when anything is left (> 0), and consumes min(need, left).
 * - An order with nothing left to execute (need 0) is funded and consumes nothing.
 * - An owner/token whose spendable amount is unknown (not read) funds its orders: a failed read does not
 *   take every order out of the book. Its availableBalance is null.
 *
 * availableBalance is what CoW Protocol's order book documents: the amount of sell token the settlement
 * contract can spend on behalf of the owner, i.e. the owner's spendable amount, the same for all the
 * owner's orders in that token (null when unknown; the API also shows null for orders that are not open).
 */
export interface FundableOrder {
  uid: string;
  owner: string;
  sellToken: string;
  kind: 'sell' | 'buy';
  partiallyFillable: boolean;
  sellAmount: bigint;
  buyAmount: bigint;
  feeAmount: bigint;
  /** Fee included, as the Trade events report it. */
  executedSellAmount: bigint;
  executedBuyAmount: bigint;
}

export interface Funding {
  funded: boolean;
  /** Sell token the order may still take, fee included. */
  need: bigint;
  availableBalance: bigint | null;
}

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

export function remainingNeed(order: FundableOrder): bigint {
  const limit = order.sellAmount + order.feeAmount;
  if (order.kind === 'sell') {
    const left = limit - order.executedSellAmount;
    return left > 0n ? left : 0n;
  }
  const leftToBuy = order.buyAmount - order.executedBuyAmount;
  if (leftToBuy <= 0n || order.buyAmount === 0n) return 0n;
  return ceilDiv(limit * leftToBuy, order.buyAmount);
}

/**
 * `orders` oldest first (any owners and tokens mixed); `spendable(owner, token)` is the owner's spendable
 * amount of the token, undefined when unknown. Keyed by order uid.
 */
export function allocateFunding(
  orders: readonly FundableOrder[],
  spendable: (owner: string, token: string) => bigint | undefined,
): Map<string, Funding> {
  const spendableOf = new Map<string, bigint | undefined>();
  const left = new Map<string, bigint>();
  const result = new Map<string, Funding>();
  for (const order of orders) {
    const key = `${order.owner.toLowerCase()}:${order.sellToken.toLowerCase()}`;
    if (!spendableOf.has(key)) {
      const amount = spendable(order.owner, order.sellToken);
      spendableOf.set(key, amount);
      if (amount !== undefined) left.set(key, amount);
    }
    const need = remainingNeed(order);
    const available = spendableOf.get(key);
    if (available === undefined) {
      result.set(order.uid, { funded: true, need, availableBalance: null });
      continue;
    }
    const remaining = left.get(key)!;
    let funded: boolean;
    let consumed: bigint;
    if (need === 0n) {
      funded = true;
      consumed = 0n;
    } else if (order.partiallyFillable) {
      funded = remaining > 0n;
      consumed = need < remaining ? need : remaining;
    } else {
      funded = need <= remaining;
      consumed = funded ? need : 0n;
    }
    left.set(key, remaining - consumed);
    result.set(order.uid, { funded, need, availableBalance: available });
  }
  return result;
}
