/**
 * POST /api/v1/quote: prices an order (domain/quote.ts) from the fee's price sources and the chain's gas
 * price, and saves it in the quote store (store/quote-store.ts: a row with an expiration and an integer id
 * in the log's database, as CoW's order book keeps them), so an order naming the quote finds it on any
 * instance until it expires (usecases/order-facts.ts). Nothing is appended to the log: an order that uses a
 * quote carries the quote's figures in its OrderCreated event. Older logs hold QuoteIssued events; they are
 * read, never written.
 */
import type { QuoteData } from '../store/quote-store.js';
import type { OrderQuoteRequest } from '../../generated/orderbook/order-quote-request.js';
import type { OrderQuoteResponse } from '../../generated/orderbook/order-quote-response.js';
import { validator } from '../../shared/schemas.js';
import { orderbookErrors } from '../domain/errors.js';
import { resolveAppData, ZERO_APP_DATA } from '../domain/app-data.js';
import { quoteAmounts, quoteSide, quoteValidTo } from '../domain/quote.js';
import { tokenPrice } from './queries/prices.js';
import type { Book } from './book.js';

const isQuoteRequest = validator<OrderQuoteRequest>('orderbook/order-quote-request.schema.json');
const isQuoteData = validator<QuoteData>('orderbook/events/quote-issued.schema.json');

export async function quote(book: Pick<Book, 'chain' | 'config' | 'quoteStore' | 'clock'>, body: unknown): Promise<OrderQuoteResponse> {
  const { config } = book;
  if (!isQuoteRequest(body)) throw orderbookErrors.fromSchema(isQuoteRequest.errors, 'quote');
  const now = Math.floor(book.clock() / 1000);
  const sellToken = body.sellToken.toLowerCase();
  const buyToken = body.buyToken.toLowerCase();
  if (sellToken === buyToken) throw orderbookErrors.sameBuyAndSellToken();
  const appData = resolveAppData(body.appData ?? ZERO_APP_DATA, body.appDataHash);
  if (!appData) throw orderbookErrors.invalidAppData('appData must be 32 bytes (0x + 64 hex digits) or the app data JSON document');
  const side = quoteSide(body);
  const validTo = quoteValidTo(body, now);
  const minValidTo = now + config.minValidToSeconds;
  if (validTo < minValidTo) throw orderbookErrors.insufficientValidTo(minValidTo);
  const [sell, buy] = await Promise.all([tokenPrice(book, sellToken, true), tokenPrice(book, buyToken)]);
  const gasPrice = sell.gasPrice!;
  const gasAmount = BigInt(config.gasPerTrade);
  const amounts = quoteAmounts(side, sell.price, buy.price, gasPrice, gasAmount);
  if (amounts.buyAmount === 0n) throw orderbookErrors.zeroAmount();
  const quotedAt = new Date(book.clock());
  const data: QuoteData = {
    sellToken,
    buyToken,
    receiver: body.receiver ? body.receiver.toLowerCase() : null,
    sellAmount: amounts.sellAmount.toString(),
    buyAmount: amounts.buyAmount.toString(),
    feeAmount: amounts.feeAmount.toString(),
    validTo,
    appData: appData.hash,
    fullAppData: appData.full,
    kind: body.kind,
    partiallyFillable: body.partiallyFillable ?? false,
    sellTokenBalance: body.sellTokenBalance ?? 'erc20',
    buyTokenBalance: body.buyTokenBalance ?? 'erc20',
    signingScheme: body.signingScheme ?? 'eip712',
    from: body.from.toLowerCase(),
    priceQuality: body.priceQuality ?? 'verified',
    gasAmount: gasAmount.toString(),
    gasPrice: gasPrice.toString(),
    sellTokenPrice: String(Number(sell.price.numerator) / Number(sell.price.denominator)),
    expiration: new Date(quotedAt.getTime() + config.feeQuoteTtlSeconds * 1000).toISOString(),
    quotedAt: quotedAt.toISOString(),
  };
  if (!isQuoteData(data)) throw new Error(`a quote does not match its schema: ${JSON.stringify(isQuoteData.errors?.[0])}`);
  const id = await book.quoteStore.save(data, quotedAt);
  return {
    quote: {
      sellToken,
      buyToken,
      receiver: data.receiver,
      sellAmount: data.sellAmount,
      buyAmount: data.buyAmount,
      validTo,
      appData: appData.full ?? appData.hash,
      ...(appData.full ? { appDataHash: appData.hash } : {}),
      feeAmount: data.feeAmount,
      gasAmount: data.gasAmount,
      gasPrice: data.gasPrice,
      sellTokenPrice: data.sellTokenPrice,
      kind: data.kind,
      partiallyFillable: data.partiallyFillable,
      sellTokenBalance: data.sellTokenBalance,
      buyTokenBalance: data.buyTokenBalance,
      signingScheme: data.signingScheme,
    },
    from: data.from,
    expiration: data.expiration,
    id,
    verified: false,
  };
}
