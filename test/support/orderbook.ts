/**
 * The order book as its clients see it, for API tests: the real service in-process (ORDERBOOK=on, its
 * embedded mainnet anvil with the GPv2 contracts it deployed), an ethers v6 provider on that chain, traders
 * with ether and test tokens, and small HTTP helpers for the /api/v1 endpoints.
 */
import { JsonRpcProvider, Wallet, type TransactionReceipt, type TypedDataDomain } from 'ethers';
import { devChainPlan } from '../../src/wiring/gpv2.js';
import { gpv2Domain } from '../../src/orderbook/domain/eip712.js';
import type { RunningOrderbook } from '../../src/orderbook/index.js';
import { startTestService, type TestService } from './service.js';
import { fundTrader, mined, testToken, TestSolver, type SettledTrade, type TestOrder } from './solver.js';
import type { OrderCreation } from '../../src/generated/orderbook/order-creation.js';
import { gasFundedWallet } from './chain.js';
import { http, postJson, type HttpResult } from './http.js';

/** The dev chain's test tokens (the same addresses on every fresh dev chain). */
export const TOKENS = Object.fromEntries(devChainPlan().tokens.map((t) => [t.symbol, t.address])) as Record<'TKA' | 'TKB' | 'TKC', string>;

export interface OrderbookHarness {
  service: TestService;
  book: RunningOrderbook;
  /** http://host:port/api/v1 */
  api: string;
  provider: JsonRpcProvider;
  domain: TypedDataDomain;
  settlement: string;
  vaultRelayer: string;
  solver: TestSolver;
  /** A new wallet with 100 ether and, for each entry, that amount of the token approved to the vault relayer. */
  trader(funds?: Record<string, bigint>): Promise<Wallet>;
  stop(): Promise<void>;
}

export async function startOrderbookService(env: Record<string, string> = {}): Promise<OrderbookHarness> {
  const service = await startTestService({ ORDERBOOK: 'on', MIN_VALID_TO_SECONDS: '1', ...env });
  const book = service.orderbook!;
  const anvil = service.gateway.network('mainnet').anvil!;
  const provider = new JsonRpcProvider(anvil.httpUrl, 1, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 50 });
  const { settlement, vaultRelayer, chainId } = book.chain.deployment;
  return {
    service,
    book,
    api: `${service.url}/api/v1`,
    provider,
    domain: gpv2Domain(chainId, settlement),
    settlement,
    vaultRelayer,
    solver: new TestSolver(provider, { settlement }),
    async trader(funds = {}) {
      const wallet = await gasFundedWallet(provider, provider);
      for (const [token, amount] of Object.entries(funds)) await fundTrader(token, wallet, amount, vaultRelayer);
      return wallet;
    },
    async stop() {
      provider.destroy();
      await service.stop();
    },
  };
}

/** GET `${api}${path}` */
export function get(api: string, path: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  return http(`${api}${path}`, { headers });
}

export function postOrder(api: string, body: unknown): Promise<HttpResult> {
  return postJson(`${api}/orders`, body);
}

export function deleteOrder(api: string, uid: string, body: unknown): Promise<HttpResult> {
  return http(`${api}/orders/${uid}`, {
    method: 'DELETE',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The order of an OrderCreation body in the shape TestSolver settles. */
export function testOrderOf(body: OrderCreation): TestOrder {
  return {
    sellToken: body.sellToken,
    buyToken: body.buyToken,
    receiver: body.receiver ?? null,
    sellAmount: BigInt(body.sellAmount),
    buyAmount: BigInt(body.buyAmount),
    validTo: body.validTo,
    appData: body.appData,
    feeAmount: BigInt(body.feeAmount),
    kind: body.kind,
    partiallyFillable: body.partiallyFillable,
    sellTokenBalance: body.sellTokenBalance,
    buyTokenBalance: body.buyTokenBalance,
  };
}

/**
 * Settles eip712/ethsign orders in one transaction against the settlement contract's own buffer (the buy
 * tokens are minted to it first), so that no counter-order is needed. Without `prices`, each order on its
 * own tokens at its limit price; `executed` gives a partially fillable order's amount. Resolves once the
 * indexer recorded the trades and the read models show them.
 */
export async function settle(
  h: OrderbookHarness,
  orders: { body: OrderCreation; executed?: bigint }[],
  prices?: Record<string, bigint>,
): Promise<TransactionReceipt> {
  const minter = await h.trader();
  const clearing: Record<string, bigint> = { ...prices };
  const buffer = new Map<string, bigint>();
  const trades: SettledTrade[] = orders.map(({ body, executed }) => {
    const order = testOrderOf(body);
    const sell = order.sellToken.toLowerCase();
    const buy = order.buyToken.toLowerCase();
    if (!prices) {
      // Uniform clearing prices with price(sell) = buyAmount and price(buy) = sellAmount: the limit price.
      if (clearing[sell] !== undefined || clearing[buy] !== undefined) throw new Error('settle() without prices takes orders on distinct tokens');
      clearing[sell] = order.buyAmount;
      clearing[buy] = order.sellAmount;
    }
    buffer.set(buy, (buffer.get(buy) ?? 0n) + order.buyAmount * 2n);
    return { order, scheme: body.signingScheme as 'eip712' | 'ethsign', signature: body.signature, executedAmount: executed };
  });
  for (const [token, amount] of buffer) await mined(testToken(token, minter).mint(h.settlement, amount));
  const receipt = await h.solver.settle(trades, clearing);
  await caughtUp(h);
  return receipt;
}

/** Waits until the indexer has seen the chain's head and every read model shows the log's head. */
export async function caughtUp(h: OrderbookHarness): Promise<void> {
  await h.book.indexer.idle();
  await h.book.runner.waitFor(await h.book.events.head());
}
