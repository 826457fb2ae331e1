/**
 * The CoW SDK's order book client as a trader's app uses it: @cowprotocol/sdk-order-book's OrderBookApi
 * (pinned in package.json) pointed at the service, one attempt per call (so that a 5xx shows at once
 * rather than after ten retries), and the bulk cancellation signature it sends.
 */
import { OrderBookApi, OrderBookApiError } from '@cowprotocol/sdk-order-book';
import type { Signer, TypedDataDomain } from 'ethers';
import { CANCELLATIONS_TYPES } from '../../src/orderbook/domain/eip712.js';

export { OrderBookApiError };

/** OrderBookApi on `serviceUrl` (http://host:port, without /api/v1) for chain 1, the embedded mainnet anvil. */
export function cowOrderBookApi(serviceUrl: string): OrderBookApi {
  return new OrderBookApi({
    chainId: 1,
    baseUrls: { 1: serviceUrl } as never,
    backoffOpts: { numOfAttempts: 1 },
    limiterOpts: { tokensPerInterval: 1000, interval: 'second' },
  });
}

/** The EIP-712 signature of OrderCancellations(orderUids), as CoW Swap signs a bulk cancellation. */
export function signCancellations(signer: Signer, domain: TypedDataDomain, orderUids: string[]): Promise<string> {
  return signer.signTypedData(domain, CANCELLATIONS_TYPES, { orderUids });
}

/** What a rejected OrderBookApi call carried: HTTP status and body. */
export async function apiError(call: Promise<unknown>): Promise<{ status: number; body: any }> {
  try {
    await call;
  } catch (err) {
    if (err instanceof OrderBookApiError) return { status: err.response.status, body: err.body };
    throw err;
  }
  throw new Error('the call succeeded; an error was expected');
}
