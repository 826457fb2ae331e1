/**
 * The dev solver of the embedded chain: what makes `npm start` a playground where orders get traded. It
 * behaves as an external solver would: it reads the batch from the service's own public API
 * (GET /api/v1/auction, POST /api/v1/orders/by_uids for the signed fee, GET /api/v1/domain for the
 * contracts), finds coincidences of wants with the pure rules of matching.ts, reads the owners' spendable
 * amounts on chain, and sends GPv2Settlement.settle as the allow-listed dev solver (anvil's account #1).
 * Its trades come back through the indexer like anyone's; it writes nothing to the event log.
 *
 * It looks at each new block and every second (the dev chain mines only on transactions, and a new order
 * mines nothing). Its work is bounded: at most `maxOrders` orders of an auction, a few pairs tried per
 * round, one settlement in flight. A pair it could not settle (a settlement that would revert, an owner
 * short of funds) is left alone for a while, longer after each failure. Every failure is a log line.
 */
import { Interface, Wallet, type InterfaceAbi } from 'ethers';
import { gpv2Artifact } from '../contracts/artifacts.js';
import type { Logger } from '../shared/logger.js';
import type { HeadSource } from '../orderbook/chain/port.js';
import { ChainRpcProvider } from '../orderbook/chain/ethers-provider.js';
import type { ChainRpc } from '../orderbook/chain/rpc.js';
import type { Auction } from '../generated/orderbook/auction.js';
import type { AuctionOrder } from '../generated/orderbook/auction-order.js';
import type { Order } from '../generated/orderbook/order.js';
import type { Eip712DomainInfo } from '../generated/orderbook/domain.js';
import { Backoff } from './backoff.js';
import { encodeSettlement, tradeSignatureOf, type SettledTrade, type SigningScheme } from './encoding.js';
import { crossingPairs, matchPair, type Match, type SolverOrder } from './matching.js';

export interface DevSolverOptions {
  /** http://host:port of the service's main listener. */
  apiUrl: string;
  rpc: ChainRpc;
  heads: HeadSource;
  chainId: number;
  /** Most orders of one auction looked at (the oldest first). */
  maxOrders: number;
  /** The private key of the allow-listed solver account it settles as. */
  solverKey: string;
  log: Logger;
  /** How often it looks without a new block (ms). */
  intervalMs?: number;
}

/** Pairs tried (balances read, settlement simulated) in one round at most. */
const MAX_TRIES_PER_ROUND = 4;
/** Crossing pairs listed per round at most. */
const MAX_PAIRS = 64;
/** An order whose validTo is this close is left out: the settlement could be mined after it. */
const VALIDITY_MARGIN_SECONDS = 10;
/** How long a settled order is left out while the indexer has not shown its trade yet. */
const PENDING_MS = 30_000;
const HTTP_TIMEOUT_MS = 10_000;
const RECEIPT_TIMEOUT_MS = 60_000;

const ERC20_ABI = ['function balanceOf(address) view returns (uint256)', 'function allowance(address,address) view returns (uint256)'];

export class DevSolver {
  private readonly log: Logger;
  private readonly provider: ChainRpcProvider;
  private readonly wallet: Wallet;
  private readonly settlementAbi = new Interface(gpv2Artifact('GPv2Settlement').abi as InterfaceAbi);
  private readonly erc20 = new Interface(ERC20_ABI);
  private readonly backoff = new Backoff(5_000, 300_000, 10_000);
  /** uid → the `executed` the auction showed when it was settled, and until when to wait for the indexer. */
  private readonly pending = new Map<string, { executed: string; until: number }>();
  private domain: Eip712DomainInfo | undefined;
  private etag: string | undefined;
  private auction: Auction | undefined;
  private round: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private lastError: string | undefined;

  constructor(private readonly options: DevSolverOptions) {
    this.log = options.log.child({ component: 'devsolver' });
    this.provider = new ChainRpcProvider(options.rpc, options.chainId);
    this.wallet = new Wallet(options.solverKey, this.provider);
  }

  start(): void {
    this.unsubscribe = this.options.heads.onBlock(() => this.trigger());
    this.timer = setInterval(() => this.trigger(), this.options.intervalMs ?? 1000);
    this.timer.unref();
    this.log.info({ solver: this.wallet.address.toLowerCase(), maxOrders: this.options.maxOrders }, 'dev solver on');
    this.trigger();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.unsubscribe?.();
    await this.round;
    this.provider.destroy();
  }

  /** Runs a round now, or once more after the one running (never two at a time). */
  private trigger(): void {
    if (this.stopped) return;
    if (this.round) {
      this.again = true;
      return;
    }
    this.round = this.solve()
      .catch((err: Error) => this.failure('round failed', err))
      .finally(() => {
        this.round = undefined;
        if (this.again && !this.stopped) {
          this.again = false;
          this.trigger();
        }
      });
  }

  /** Logs a failure, at warn the first time and at debug while the same one repeats. */
  private failure(what: string, err: Error, fields: Record<string, unknown> = {}): void {
    const message = `${what}: ${err.message}`;
    const level = message === this.lastError ? 'debug' : 'warn';
    this.lastError = message;
    this.log[level]({ ...fields, err: err.message }, what);
  }

  private async api<T>(method: 'GET' | 'POST', path: string, body?: unknown, etag?: string): Promise<{ status: number; json?: T; etag?: string }> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (etag) headers['if-none-match'] = etag;
    const res = await fetch(`${this.options.apiUrl}/api/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
    });
    if (res.status === 304) return { status: 304 };
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} /api/v1${path}: ${res.status} ${text.slice(0, 200)}`);
    return { status: res.status, json: JSON.parse(text) as T, etag: res.headers.get('etag') ?? undefined };
  }

  /** The current auction (the last one again when the service says it has not changed). */
  private async currentAuction(): Promise<Auction | undefined> {
    const res = await this.api<Auction>('GET', '/auction', undefined, this.etag);
    if (res.status !== 304) {
      this.auction = res.json;
      this.etag = res.etag;
    }
    return this.auction;
  }

  private async solve(): Promise<void> {
    const auction = await this.currentAuction();
    if (!auction || auction.orders.length === 0) return;
    const now = Date.now();
    const inAuction = new Map(auction.orders.map((o) => [o.uid, o]));
    for (const [uid, p] of this.pending) {
      if (now > p.until || inAuction.get(uid)?.executed !== p.executed) this.pending.delete(uid);
    }
    this.backoff.prune((key) => key.split('+').every((uid) => inAuction.has(uid)));

    const minValidTo = Math.floor(now / 1000) + VALIDITY_MARGIN_SECONDS;
    const usable = auction.orders
      .filter((o) => o.sellTokenBalance === 'erc20' && o.buyTokenBalance === 'erc20' && o.validTo >= minValidTo && !this.pending.has(o.uid))
      .sort((a, b) => Number(a.created) - Number(b.created))
      .slice(0, this.options.maxOrders);
    const byUid = new Map(usable.map((o) => [o.uid, o]));
    // The fee is not in the auction (today's orders sign 0); it is filled in for the pairs tried.
    const candidates = crossingPairs(usable.map((o) => solverOrder(o, 0n)), MAX_PAIRS).filter(
      ([a, b]) => !this.backoff.blocked(pairKey(a.uid, b.uid), now),
    );
    for (const [a, b] of candidates.slice(0, MAX_TRIES_PER_ROUND)) {
      if (this.stopped) return;
      const key = pairKey(a.uid, b.uid);
      const orders = [byUid.get(a.uid)!, byUid.get(b.uid)!] as const;
      try {
        const match = await this.matchWithFunds(orders);
        if (!match) {
          const delay = this.backoff.failed(key, Date.now());
          this.log.debug({ orders: [a.uid, b.uid], retryInMs: delay }, 'crossing orders, but no settlement fits their fill rules and funds');
          continue;
        }
        await this.settle(match, orders);
        return; // one settlement per round: the next round sees the book after it
      } catch (err) {
        const delay = this.backoff.failed(key, Date.now());
        this.failure('could not settle a pair', err as Error, { orders: [a.uid, b.uid], retryInMs: delay });
      }
    }
  }

  /** The match of two auction orders with their signed fees and their owners' spendable amounts. */
  private async matchWithFunds(orders: readonly [AuctionOrder, AuctionOrder]): Promise<Match | undefined> {
    const domain = await this.contracts();
    const full = await this.api<{ order: Order }[]>('POST', '/orders/by_uids', orders.map((o) => o.uid));
    const fees = new Map((full.json ?? []).map(({ order }) => [order.uid, BigInt(order.feeAmount)]));
    if (!orders.every((o) => fees.has(o.uid))) return undefined;
    const calls = orders.flatMap((o) => [
      { method: 'eth_call', params: [{ to: o.sellToken, data: this.erc20.encodeFunctionData('balanceOf', [o.owner]) }, 'latest'] },
      { method: 'eth_call', params: [{ to: o.sellToken, data: this.erc20.encodeFunctionData('allowance', [o.owner, domain.vaultRelayer]) }, 'latest'] },
    ]);
    const answers = await this.options.rpc.batch(calls);
    const amount = (i: number) => {
      const answer = answers[i];
      if (answer.error) throw new Error(`reading a balance: ${answer.error.message}`);
      return BigInt(answer.result as string);
    };
    const [a, b] = orders.map((o, i) => {
      const balance = amount(2 * i);
      const allowance = amount(2 * i + 1);
      return { ...solverOrder(o, fees.get(o.uid)!), available: balance < allowance ? balance : allowance };
    });
    return matchPair(a, b);
  }

  /** The settlement and vault relayer addresses, from GET /api/v1/domain. */
  private async contracts(): Promise<{ settlement: string; vaultRelayer: string }> {
    if (!this.domain) this.domain = (await this.api<Eip712DomainInfo>('GET', '/domain')).json;
    const { verifyingContract, vaultRelayer } = this.domain!;
    if (!vaultRelayer) throw new Error('GET /api/v1/domain names no vault relayer');
    return { settlement: verifyingContract, vaultRelayer };
  }

  /** Sends the settlement (a revert shows in the gas estimate, before anything is sent) and waits for it. */
  private async settle(match: Match, orders: readonly [AuctionOrder, AuctionOrder]): Promise<void> {
    const { settlement } = await this.contracts();
    const trades: SettledTrade[] = match.trades.map((t, i) => {
      const o = orders[i];
      const scheme = (o.signingScheme ?? 'eip712') as SigningScheme;
      return {
        order: {
          sellToken: o.sellToken,
          buyToken: o.buyToken,
          receiver: o.receiver,
          sellAmount: BigInt(o.sellAmount),
          buyAmount: BigInt(o.buyAmount),
          validTo: o.validTo,
          appData: o.appData,
          feeAmount: t.order.feeAmount,
          kind: o.kind,
          partiallyFillable: o.partiallyFillable,
          sellTokenBalance: o.sellTokenBalance,
          buyTokenBalance: o.buyTokenBalance,
        },
        scheme,
        signature: tradeSignatureOf(o.owner, scheme, o.signature),
        executedAmount: t.executedAmount,
      };
    });
    const prices = { [match.tokens[0]]: match.prices[0], [match.tokens[1]]: match.prices[1] };
    const encoded = encodeSettlement(trades, prices);
    const data = this.settlementAbi.encodeFunctionData('settle', [encoded.tokens, encoded.clearingPrices, encoded.trades, encoded.interactions]);
    const tx = await this.wallet.sendTransaction({ to: settlement, data });
    const until = Date.now() + PENDING_MS;
    for (const o of orders) this.pending.set(o.uid, { executed: o.executed, until });
    const receipt = await tx.wait(1, RECEIPT_TIMEOUT_MS);
    if (!receipt || receipt.status !== 1) throw new Error(`settlement ${tx.hash} reverted`);
    this.lastError = undefined;
    this.log.info(
      {
        tx: tx.hash,
        block: receipt.blockNumber,
        orders: orders.map((o) => o.uid),
        sold: match.trades.map((t) => t.sold.toString()),
        bought: match.trades.map((t) => t.bought.toString()),
      },
      'settled a coincidence of wants',
    );
  }
}

const pairKey = (a: string, b: string) => `${a}+${b}`;

/** An auction order for the rules; `feeAmount` is the signed fee. */
function solverOrder(o: AuctionOrder, feeAmount: bigint): SolverOrder {
  return {
    uid: o.uid,
    sellToken: o.sellToken.toLowerCase(),
    buyToken: o.buyToken.toLowerCase(),
    sellAmount: BigInt(o.sellAmount),
    buyAmount: BigInt(o.buyAmount),
    feeAmount,
    kind: o.kind,
    partiallyFillable: o.partiallyFillable,
    executed: BigInt(o.executed),
  };
}
