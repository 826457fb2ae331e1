/**
 * The order book on its chain, as the on-chain end-to-end tests use it: the real service in-process
 * (ORDERBOOK=on, the GPv2 contracts deployed on its embedded anvil), traders as ethers v6 wallets that
 * reach the chain through the gateway's own mainnet listener (a client's view), the allow-listed test
 * solver, and small wrappers over the order book API.
 *
 * Chain control (anvil_setBalance, evm_snapshot/evm_revert, evm_mine) goes straight to anvil: the gateway
 * does not relay dev-chain methods, as Infura does not.
 */
import assert from 'node:assert/strict';
import { JsonRpcProvider, Wallet, parseUnits, type TypedDataDomain } from 'ethers';
import { devChainPlan } from '../../src/wiring/gpv2.js';
import type { RunningOrderbook } from '../../src/orderbook/index.js';
import type { Order } from '../../src/generated/orderbook/order.js';
import { gasFundedWallet } from './chain.js';
import { http, postJson, type HttpResult } from './http.js';
import { orderData, signOrder, type OrderParams, type SignedOrderCreation } from './orders.js';
import { gpv2Domain } from '../../src/orderbook/domain/eip712.js';
import { fundTrader, TestSolver, type SettledTrade, type TestOrder } from './solver.js';
import { startTestService, type TestService } from './service.js';

export const e18 = (n: number | string): bigint => parseUnits(String(n), 18);

/** The dev chain's tokens (deterministic CREATE2 addresses, see devChainPlan). */
export const DEV_TOKEN_ADDRESSES = Object.fromEntries(devChainPlan().tokens.map((t) => [t.symbol, t.address])) as Record<
  'TKA' | 'TKB' | 'TKC',
  string
>;

export interface OnchainBook {
  service: TestService;
  orderbook: RunningOrderbook;
  /** http://…/api/v1 */
  api: string;
  /** A client's provider: the gateway's mainnet listener. */
  client: JsonRpcProvider;
  /** Straight to the embedded anvil, for dev-chain control. */
  anvil: JsonRpcProvider;
  domain: TypedDataDomain;
  settlement: string;
  vaultRelayer: string;
  solver: TestSolver;
  /** A fresh wallet on the client provider with 100 ETH for gas. */
  trader(): Promise<Wallet>;
  /** A fresh trader holding `amount` of `token`, with `allowance` (default: the amount) to the vault relayer. */
  fundedTrader(token: string, amount: bigint, allowance?: bigint): Promise<Wallet>;
  /** Any JSON-RPC call to anvil itself. */
  control(method: string, params?: unknown[]): Promise<any>;
  get(path: string): Promise<HttpResult>;
  post(path: string, body: unknown): Promise<HttpResult>;
  /** GET /orders/{uid}. */
  order(uid: string): Promise<Order>;
  /** POSTs an order and expects 201 with its UID. */
  place(order: SignedOrderCreation): Promise<string>;
  /** Waits until the indexer has processed the chain up to its head now. */
  indexed(): Promise<void>;
  stop(): Promise<void>;
}

export async function startOnchainBook(env: Record<string, string> = {}): Promise<OnchainBook> {
  const service = await startTestService({ ORDERBOOK: 'on', PORT_MAINNET: '0', ...env });
  const orderbook = service.orderbook;
  if (!orderbook) throw new Error('the order book did not start');
  const anvilUrl = service.gateway.network('mainnet').anvil?.httpUrl;
  if (!anvilUrl) throw new Error('mainnet has no embedded anvil');
  const options = { staticNetwork: true, cacheTimeout: -1, pollingInterval: 100 } as const;
  const client = new JsonRpcProvider(service.networkUrls.mainnet, 1, options);
  const anvil = new JsonRpcProvider(anvilUrl, 1, { ...options, batchMaxCount: 1 });
  const { settlement, vaultRelayer } = orderbook.chain.deployment;
  const api = `${service.url}/api/v1`;
  const book: OnchainBook = {
    service,
    orderbook,
    api,
    client,
    anvil,
    domain: gpv2Domain(1, settlement),
    settlement,
    vaultRelayer,
    solver: new TestSolver(client, { settlement }),
    async trader() {
      const wallet = await gasFundedWallet(client, anvil);
      return wallet;
    },
    async fundedTrader(token, amount, allowance = amount) {
      const wallet = await book.trader();
      await fundTrader(token, wallet, amount, vaultRelayer, allowance);
      return wallet;
    },
    control: (method, params = []) => anvil.send(method, params),
    get: (path) => http(`${api}${path}`),
    post: (path, body) => postJson(`${api}${path}`, body),
    order: (uid) => http(`${api}/orders/${uid}`).then((r) => r.json as Order),
    async place(order) {
      const res = await postJson(`${api}/orders`, order.body);
      assert.equal(res.status, 201, `POST /orders: ${res.text}`);
      assert.equal(res.json, order.uid);
      return order.uid;
    },
    indexed: () => orderbook.indexer.idle(60_000),
    async stop() {
      client.destroy();
      anvil.destroy();
      await service.stop();
    },
  };
  return book;
}

/** A signed order and what the solver needs to settle it. */
export interface PlacedOrder extends SignedOrderCreation {
  order: TestOrder;
}

export async function signed(
  signer: Wallet,
  domain: TypedDataDomain,
  params: OrderParams,
  options: Parameters<typeof signOrder>[3] = {},
): Promise<PlacedOrder> {
  const creation = await signOrder(signer, domain, params, options);
  return { ...creation, order: orderData({ ...params, validTo: creation.body.validTo }) };
}

/** The solver's view of a placed ECDSA order. */
export function settledTrade(placed: PlacedOrder, executedAmount?: bigint): SettledTrade {
  const scheme = placed.body.signingScheme as 'eip712' | 'ethsign';
  return { order: placed.order, scheme, signature: placed.body.signature, executedAmount };
}

/** Polls GET `path` until `accept` holds for its JSON; returns that JSON. */
export async function eventually<T = any>(
  book: OnchainBook,
  path: string,
  accept: (json: T) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await book.get(path);
    if (res.status === 200 && accept(res.json as T)) return res.json as T;
    if (Date.now() > deadline) {
      throw new Error(`waited ${timeoutMs} ms for ${what}; GET ${path} answered ${res.status} ${res.text.slice(0, 500)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function solvableUids(book: OnchainBook): Promise<string[]> {
  const res = await book.get('/solvable_orders');
  assert.equal(res.status, 200);
  return (res.json as { uid: string }[]).map((o) => o.uid);
}
