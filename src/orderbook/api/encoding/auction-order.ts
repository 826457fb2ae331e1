/**
 * A solvable order as GET /api/v1/auction forwards it (the reference's AuctionOrder), made from the order
 * as the API presents it. The solvable view's encoding (solvable.ts) writes each order's auction form once
 * per order state, beside its solvable_orders form, and the auction is joined from those.
 */
import type { Order } from '../../../generated/orderbook/order.js';
import type { AuctionOrder } from '../../../generated/orderbook/auction-order.js';

export function auctionOrder(order: Order): AuctionOrder {
  return {
    uid: order.uid,
    sellToken: order.sellToken,
    buyToken: order.buyToken,
    sellAmount: order.sellAmount,
    buyAmount: order.buyAmount,
    created: String(Math.floor(Date.parse(order.creationDate) / 1000)),
    validTo: order.validTo,
    kind: order.kind,
    receiver: order.receiver,
    owner: order.owner,
    partiallyFillable: order.partiallyFillable,
    executed: order.kind === 'sell' ? order.executedSellAmountBeforeFees : order.executedBuyAmount,
    preInteractions: [],
    postInteractions: [],
    sellTokenBalance: order.sellTokenBalance,
    buyTokenBalance: order.buyTokenBalance,
    class: order.class ?? 'limit',
    appData: order.appData,
    signature: order.signature,
    signingScheme: order.signingScheme,
    protocolFees: [],
    ...(order.quote ? { quote: { sellAmount: order.quote.sellAmount, buyAmount: order.quote.buyAmount, fee: order.quote.feeAmount } } : {}),
  };
}
