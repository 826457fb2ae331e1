/**
 * The order as the API writes it on the wire (every order endpoint, solvable_orders and the auction
 * included): the use cases and the solvable view hold orders as values (the folded state, amounts as
 * bigint, the funding), and only here do they become the wire's Order, amounts as decimal strings.
 */
import type { Order } from '../../generated/orderbook/order.js';
import { isInvalidated, status, type OrderState, type OrderStatus } from '../write/order-state.js';
import type { FoundOrder } from '../usecases/queries/orders.js';

/**
 * The order as the API returns it at `now` (every order endpoint, solvable_orders included), or null when
 * the order itself is unknown: the signed order, what its events made of it (executed amounts,
 * invalidated, status), `availableBalance` (the owner's sell token balance available to it, when known),
 * and today's fields: class (limit unless its quote made it market), settlementContract, fullAppData,
 * executedFee (the signed fee is already in executedFeeAmount and a fee taken in the price is not measured
 * here: "0"), executedFeeToken (the sell token) and the quote it was placed with.
 */
export function presentOrder(state: OrderState, now: number, settlement: string, availableBalance: bigint | null = null): Order | null {
  const order = state.order;
  if (!order) return null;
  // Field by field: see derive.
  const presented: Order = {
    uid: order.uid,
    owner: order.owner,
    creationDate: order.creationDate,
    sellToken: order.sellToken,
    buyToken: order.buyToken,
    receiver: order.receiver,
    sellAmount: state.amounts!.sellAmount.toString(),
    buyAmount: state.amounts!.buyAmount.toString(),
    validTo: order.validTo,
    appData: order.appData,
    feeAmount: state.amounts!.feeAmount.toString(),
    kind: order.kind,
    partiallyFillable: order.partiallyFillable,
    sellTokenBalance: order.sellTokenBalance,
    buyTokenBalance: order.buyTokenBalance,
    signingScheme: order.signingScheme,
    signature: order.signature,
    availableBalance: availableBalance === null ? null : availableBalance.toString(),
    executedSellAmount: state.executed.sellAmount.toString(),
    executedSellAmountBeforeFees: state.executed.sellAmountBeforeFees.toString(),
    executedBuyAmount: state.executed.buyAmount.toString(),
    executedFeeAmount: state.executed.feeAmount.toString(),
    invalidated: isInvalidated(state),
    status: status(state, now) as OrderStatus,
    class: order.class ?? 'limit',
    settlementContract: settlement,
    fullAppData: order.fullAppData ?? null,
    executedFee: '0',
    executedFeeToken: order.sellToken,
    quote: order.quote ?? null,
  };
  if (order.quoteId !== undefined) presented.quoteId = order.quoteId;
  return presented;
}

/** An order a query found, as the API writes it; settlement: the book's (lowercase). */
export function presentFound(found: FoundOrder, settlement: string): Order {
  return presentOrder(found.state, found.now, settlement, found.funding?.availableBalance ?? null)!;
}
