/**
 * Prices: GET /api/v1/tokens/{sellToken}/fee (the seed's fee quote) and GET /api/v1/token/{token}/native_price,
 * and the native price of a token as quotes, the auction and total_surplus read it.
 */
import type { FeeInformation } from '../../../generated/orderbook/fee-information.js';
import { orderbookErrors } from '../../domain/errors.js';
import { priceNumber, type TokenPrice } from '../../domain/quote.js';
import type { Book } from '../book.js';

/** The token's price in the native token (and the gas price when asked); NoLiquidity (404) when nothing prices it. */
export async function tokenPrice(
  book: Pick<Book, 'chain'>,
  token: string,
  withGasPrice = false,
): Promise<{ price: TokenPrice; gasPrice: bigint | null }> {
  const { fees } = book.chain;
  const priced = fees.nativePrice ? await fees.nativePrice(token, withGasPrice) : null;
  if (!priced) throw orderbookErrors.noLiquidity(token);
  return priced;
}

/** GET /api/v1/token/{token}/native_price: native token atoms per atom; NoLiquidity (404) when unpriced. */
export async function nativePrice(book: Pick<Book, 'chain'>, token: string): Promise<{ price: number }> {
  const { price } = await tokenPrice(book, token);
  return { price: priceNumber(price) };
}

/** GET /api/v1/tokens/{sellToken}/fee. */
export async function feeQuote(book: Pick<Book, 'chain'>, token: string): Promise<FeeInformation> {
  if (!/^0x[0-9a-fA-F]{40}$/.test(token)) {
    throw orderbookErrors.invalidOrderData(`sellToken "${token.slice(0, 60)}" is not an address (0x + 40 hex digits)`);
  }
  const quote = await book.chain.fees.quote(token.toLowerCase());
  if (!quote) throw orderbookErrors.notFound(`a price for token ${token.toLowerCase()}`);
  return quote;
}
