/**
 * Quote pricing (POST /api/v1/quote), pure: from the two tokens' prices in the native token (the same
 * sources as the fee: TOKEN_PRICES, pool reserves) and the chain's gas price, the order to sign.
 *
 *   fee (sell token)  = ceil(gasPrice × gasPerTrade / sellPrice)      (the seed's minimal fee)
 *   buyAmount         = floor(sellAmount × sellPrice / buyPrice)      (sell orders, sellAmount after fee)
 *   sellAmount        = ceil(buyAmount × buyPrice / sellPrice)        (buy orders, before the fee)
 *
 * Today's protocol signs feeAmount 0 and takes the fee in the price: the quote's sellAmount is after the
 * fee and its feeAmount says how much of the price is fee, as the reference answers.
 */
import type { OrderQuoteRequest } from '../../generated/orderbook/order-quote-request.js';
import { orderbookErrors } from './errors.js';

/** Native-token atoms per atom of the token = numerator / denominator. */
export interface TokenPrice {
  numerator: bigint;
  denominator: bigint;
}

export interface QuoteAmounts {
  sellAmount: bigint;
  buyAmount: bigint;
  feeAmount: bigint;
}

/** Default validity when the request gives neither validTo nor validFor. */
export const DEFAULT_QUOTE_VALIDITY_SECONDS = 1800;

export function quoteValidTo(request: Pick<OrderQuoteRequest, 'validTo' | 'validFor'>, now: number): number {
  if (request.validTo !== undefined && request.validFor !== undefined) {
    throw orderbookErrors.invalidOrderData('quote has both validTo and validFor; give one');
  }
  if (request.validTo !== undefined) return request.validTo;
  return Math.min(now + (request.validFor ?? DEFAULT_QUOTE_VALIDITY_SECONDS), 0xffffffff);
}

/** The one amount the request fixes, by the reference's rule (exactly one of the three, matching kind). */
export function quoteSide(request: OrderQuoteRequest): { field: 'sellAmountBeforeFee' | 'sellAmountAfterFee' | 'buyAmountAfterFee'; amount: bigint } {
  const given = (['sellAmountBeforeFee', 'sellAmountAfterFee', 'buyAmountAfterFee'] as const).filter((f) => request[f] !== undefined);
  if (given.length !== 1) {
    throw orderbookErrors.invalidOrderData('quote needs exactly one of sellAmountBeforeFee, sellAmountAfterFee (kind sell) or buyAmountAfterFee (kind buy)');
  }
  const field = given[0];
  if ((request.kind === 'buy') !== (field === 'buyAmountAfterFee')) {
    throw orderbookErrors.invalidOrderData(`quote.${field} does not go with kind ${request.kind}`);
  }
  const amount = BigInt(request[field]!);
  if (amount === 0n) throw orderbookErrors.zeroAmount();
  if (amount >= 1n << 256n) throw orderbookErrors.invalidOrderData(`quote.${field} exceeds 2^256-1`);
  return { field, amount };
}

/** The amounts of the quoted order. SellAmountDoesNotCoverFee when the fee eats the whole sell amount. */
export function quoteAmounts(
  side: ReturnType<typeof quoteSide>,
  sell: TokenPrice,
  buy: TokenPrice,
  gasPrice: bigint,
  gasPerTrade: bigint,
): QuoteAmounts {
  if (sell.numerator <= 0n || buy.numerator <= 0n) throw new RangeError('a price must be positive');
  const feeAmount = (gasPrice * gasPerTrade * sell.denominator + sell.numerator - 1n) / sell.numerator;
  // value in native atoms × (sell.den × buy.den): compare sell and buy amounts on one scale
  const buyFor = (sellAmount: bigint) => (sellAmount * sell.numerator * buy.denominator) / (sell.denominator * buy.numerator);
  const sellFor = (buyAmount: bigint) => {
    const num = buyAmount * buy.numerator * sell.denominator;
    const den = buy.denominator * sell.numerator;
    return (num + den - 1n) / den;
  };
  switch (side.field) {
    case 'sellAmountBeforeFee': {
      if (side.amount <= feeAmount) throw orderbookErrors.sellAmountDoesNotCoverFee(feeAmount);
      const sellAmount = side.amount - feeAmount;
      return { sellAmount, buyAmount: buyFor(sellAmount), feeAmount };
    }
    case 'sellAmountAfterFee':
      return { sellAmount: side.amount, buyAmount: buyFor(side.amount), feeAmount };
    case 'buyAmountAfterFee':
      return { sellAmount: sellFor(side.amount), buyAmount: side.amount, feeAmount };
  }
}

/**
 * market when the order's limit price is within its quote (it asks no more buy token per sell token, its
 * signed fee included, than the quote's sellAmount after the fee gives), else limit; limit without a quote.
 */
export function orderClass(
  order: { sellAmount: bigint; buyAmount: bigint; feeAmount: bigint },
  quote: { sellAmount: bigint; buyAmount: bigint } | null,
): 'market' | 'limit' {
  if (!quote) return 'limit';
  // order.buy / (order.sell + order.fee) <= quote.buy / quote.sell
  return order.buyAmount * quote.sellAmount <= quote.buyAmount * (order.sellAmount + order.feeAmount) ? 'market' : 'limit';
}

/** A price as the wire's number (native atoms per atom). */
export function priceNumber(price: TokenPrice): number {
  return Number(price.numerator) / Number(price.denominator);
}
