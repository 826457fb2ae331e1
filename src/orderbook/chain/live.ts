/**
 * The order book's ChainContext on a live chain: the settlement contract (deployed by the service on an
 * embedded dev chain, the configured or canonical one on an external upstream), owners' spendable balances
 * kept current block by block, fee quotes, and EIP-1271 checks, all through the order book network the
 * service gives it (port.ts).
 */
import type { OrderbookConfig } from '../../generated/config.js';
import type { Logger } from '../../shared/logger.js';
import type { ChainContext, DevChainDeployment, FeeQuotes, HeadSource, OrderbookNetwork, SpendableBalances } from './port.js';
import type { FeeInformation } from '../../generated/orderbook/fee-information.js';
import { headNumber, type ChainRpc } from './rpc.js';
import { CANONICAL_SETTLEMENT, resolveSettlement, type SettlementDeployment } from './settlement.js';
import { readSpendable, ownerTokenKey, type OwnerToken } from './balances.js';
import { FeeQuoter, type FeeQuote } from './fee.js';
import { isValidEip1271Signature } from './eip1271.js';
import { TurnBatcher, type Outcome } from '../../shared/turn-batcher.js';

/**
 * An amount, the number of the read that found it (a read never replaces what a read started after it
 * found; block numbers would not do, a reorganisation can make the chain shorter), and the head epoch that
 * read started in (an amount read before the latest head may be stale).
 */
interface Known {
  amount: bigint;
  /** What `amount` is the smaller of (both 0 when unreadable). */
  balance: bigint;
  allowance: bigint;
  /** Why the token did not answer for this owner at that read (its amount then counts as 0), if it did not. */
  unreadable?: string;
  read: number;
  epoch: number;
  /** The block it was read at. */
  block: number;
}

/**
 * Spendable amounts (min(balanceOf, allowance to the vault relayer)). Reads for order creation arriving in
 * the same tick share one head lookup and one JSON-RPC batch, and an amount already read at that head block
 * is taken as it is (it cannot change within a block), so a burst of orders from the same owners reads each
 * pair once per block. An amount read at the block the head source reports as the newest is also there
 * without any call (`atHead`). At every new head the pairs of open orders are read again, in
 * one batched read. A pair that starts being tracked is read at once unless it was read since the latest
 * head: its order may have just become open (a presignature, a trade reverted by a reorganisation) and
 * must neither wait for the next block, which on a quiet dev chain may never come, nor be judged by an
 * amount read before the chain last changed.
 *
 * Each eth_call gets at most `callGas` gas. A pair whose token fails to answer (out of gas, INVALID: see
 * balances.ts) is unknown for that pair alone: it counts as nothing spendable, so its orders are not
 * solvable, until a later read answers; every other pair of the same read is taken as read.
 */
export class ChainBalances implements SpendableBalances {
  version = 0;
  private readonly amounts = new Map<string, Known>();
  private tracked: OwnerToken[] = [];
  /** Reads for order creation, gathered per turn (shared/turn-batcher.ts). */
  private readonly fetches = new TurnBatcher<OwnerToken, bigint>((pairs) => this.readForOrders(pairs));
  private readonly listeners = new Set<() => void>();
  /** Bumped at every new head. */
  private epoch = 0;
  private reads = 0;
  /** Pairs to read as soon as the read in progress ends; reads never overlap, and requests coalesce. */
  private readonly wanted = new Map<string, OwnerToken>();
  private reading: Promise<void> | undefined;

  /** `headBlock`: the number of the newest block the head source has reported, if any. */
  constructor(
    private readonly rpc: ChainRpc,
    private readonly vaultRelayer: string,
    private readonly logger: Logger,
    private readonly headBlock: () => number | undefined,
    private readonly callGas?: number,
  ) {}

  /** Why the pair's last read failed, if its token did not answer (its amount counts as 0 meanwhile). */
  unreadable(owner: string, token: string): string | undefined {
    return this.amounts.get(ownerTokenKey(owner, token))?.unreadable;
  }

  get(owner: string, token: string): bigint | undefined {
    return this.amounts.get(ownerTokenKey(owner, token))?.amount;
  }

  funds(owner: string, token: string): { balance: bigint; allowance: bigint } | undefined {
    const known = this.amounts.get(ownerTokenKey(owner, token));
    return known && { balance: known.balance, allowance: known.allowance };
  }

  atHead(owner: string, token: string): bigint | undefined {
    const head = this.headBlock();
    return head === undefined ? undefined : this.readAt({ owner, token }, head)?.amount;
  }

  /**
   * What a read at `block` found for the pair, in the current head epoch: the epoch too, since a head
   * reported again after a reorganisation has the same number and other contents.
   */
  private readAt(pair: OwnerToken, block: number): Known | undefined {
    const known = this.amounts.get(ownerTokenKey(pair.owner, pair.token));
    return known !== undefined && known.block === block && known.epoch === this.epoch ? known : undefined;
  }

  fetch(owner: string, token: string): Promise<bigint> {
    return this.fetches.add({ owner, token });
  }

  /** The (owner, token) pairs read again at every new head. */
  get trackedPairs(): readonly OwnerToken[] {
    return this.tracked;
  }

  track(pairs: Iterable<readonly [string, string]>): void {
    this.tracked = [...pairs].map(([owner, token]) => ({ owner, token }));
    const stale = this.tracked.filter((p) => (this.amounts.get(ownerTokenKey(p.owner, p.token))?.epoch ?? -1) < this.epoch);
    if (stale.length > 0) void this.request(stale);
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once the reads asked for so far (by track or refresh) have ended. */
  settled(): Promise<void> {
    return this.reading ?? Promise.resolve();
  }

  /**
   * A new head: reads every tracked pair again. Resolves when a read that started after this call has
   * ended; a failed read keeps the amounts known so far.
   */
  refresh(): Promise<void> {
    this.epoch++;
    return this.request(this.tracked);
  }

  private request(pairs: readonly OwnerToken[]): Promise<void> {
    for (const pair of pairs) this.wanted.set(ownerTokenKey(pair.owner, pair.token), pair);
    this.reading ??= this.readWanted().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async readWanted(): Promise<void> {
    while (this.wanted.size > 0) {
      const pairs = [...this.wanted.values()];
      this.wanted.clear();
      try {
        await this.read(pairs);
      } catch (err) {
        this.logger.warn({ err: (err as Error).message, pairs: pairs.length }, 'balance refresh failed');
      }
    }
  }

  /**
   * The fetches of one turn: one head lookup, one read of the pairs not read at that block yet. A failed
   * lookup or read fails this turn's fetches (the batcher's rule), not the next turn's.
   */
  private async readForOrders(pairs: OwnerToken[]): Promise<Outcome<bigint>[]> {
    const block = await headNumber(this.rpc);
    const stale = pairs.filter((p) => this.readAt(p, block) === undefined);
    if (stale.length > 0) await this.read(stale, block);
    return pairs.map((p) => this.amounts.get(ownerTokenKey(p.owner, p.token))?.amount ?? new Error(`no amount was read for ${p.owner} and ${p.token}`));
  }

  /** Reads `pairs` at `block` (default: the head) and remembers them. */
  private async read(pairs: readonly OwnerToken[], block?: number): Promise<void> {
    const started = { read: ++this.reads, epoch: this.epoch };
    const result = await readSpendable(this.rpc, this.vaultRelayer, pairs, { block, gas: this.callGas });
    let changed = false;
    for (const [key, { spendable: amount, balance, allowance }] of result.amounts) {
      const known = this.amounts.get(key);
      if (known && known.read > started.read) continue;
      this.amounts.set(key, { amount, balance, allowance, ...started, block: result.block });
      if (known?.amount !== amount) changed = true;
      if (known?.unreadable) this.logger.info({ pair: key }, 'balance readable again');
    }
    for (const [key, { reason }] of result.unreadable) {
      const known = this.amounts.get(key);
      if (known && known.read > started.read) continue;
      this.amounts.set(key, { amount: 0n, balance: 0n, allowance: 0n, unreadable: reason, ...started, block: result.block });
      if (known?.amount !== 0n) changed = true;
      if (!known?.unreadable) this.logger.warn({ pair: key, reason }, 'balance unreadable: its orders are not solvable until it reads again');
    }
    if (changed) {
      this.version++;
      for (const listener of this.listeners) listener();
    }
  }
}

/** GET /tokens/{sellToken}/fee and the minimal fee of new orders, from FeeQuoter. */
class ChainFees implements FeeQuotes {
  constructor(private readonly quoter: FeeQuoter) {}

  async quote(token: string): Promise<FeeInformation | null> {
    const quote = await this.fresh(token);
    if (!quote) return null;
    return { expirationDate: quote.expirationDate.toISOString(), minimalFee: quote.minimalFee.toString(), feeRatio: quote.feeRatio };
  }

  async minimalFee(token: string): Promise<bigint | null> {
    const quote = this.quoter.lowestValidQuote(token) ?? (await this.fresh(token));
    return quote ? quote.minimalFee : null;
  }

  /** The price now, kept as no fee quote (quotes of today's API do not lower the seed's minimal fee). */
  async nativePrice(
    token: string,
    withGasPrice: boolean,
  ): Promise<{ price: { numerator: bigint; denominator: bigint }; gasPrice: bigint | null } | null> {
    if (!this.quoter.hasPriceSource(token)) return null;
    const result = await this.quoter.price(token, withGasPrice);
    return result.priced ? { price: { numerator: result.price.numerator, denominator: result.price.denominator }, gasPrice: result.gasPrice } : null;
  }

  /** A new quote for `token`; null when nothing prices it. */
  private async fresh(token: string): Promise<FeeQuote | null> {
    if (!this.quoter.hasPriceSource(token)) return null;
    const result = await this.quoter.quote(token);
    return result.priceable ? result.quote : null;
  }
}

export interface LiveChain extends ChainContext {
  rpc: ChainRpc;
  deployment: SettlementDeployment;
  heads: HeadSource;
  balances: ChainBalances;
  stop(): void;
}

export interface ChainOptions {
  network: OrderbookNetwork;
  config: OrderbookConfig;
  logger: Logger;
}

async function settlementOf(network: OrderbookNetwork, config: OrderbookConfig): Promise<DevChainDeployment> {
  if (config.settlementContract) return resolveSettlement(network.rpc, config.settlementContract);
  return network.devChain ? network.devChain.bootstrap(network.rpc) : resolveSettlement(network.rpc, CANONICAL_SETTLEMENT);
}

export async function openChain({ network, config, logger }: ChainOptions): Promise<LiveChain> {
  const log = logger.child({ component: 'orderbook-chain', network: network.name });
  const rpc = network.rpc;
  const deployment = await settlementOf(network, config);
  // A restarted embedded chain is a new, empty chain: deploy the contracts again (same addresses).
  network.devChain?.onRestart(() => {
    settlementOf(network, config).then(
      () => log.warn('embedded chain restarted empty: dev contracts deployed again'),
      (err: Error) => log.error({ err: err.message }, 'dev chain bootstrap after restart failed'),
    );
  });
  // Balances are read again at each new block of the network's head source (no polling of its own).
  const heads = network.heads;
  const balances = new ChainBalances(rpc, deployment.vaultRelayer, log, () => heads.latest?.number, config.balanceCallGas);
  const stopHeads = heads.onBlock(() => void balances.refresh());
  // The dev chain's tokens have built-in prices (TOKEN_PRICES and pools come first).
  const quoter = new FeeQuoter(rpc, config, { builtInPrices: deployment.tokenPrices });
  log.info({ settlement: deployment.settlement, vaultRelayer: deployment.vaultRelayer }, 'settlement contract');
  return {
    chainId: deployment.chainId,
    settlement: deployment.settlement,
    vaultRelayer: deployment.vaultRelayer,
    eip1271: (owner, digest, signature) => isValidEip1271Signature(rpc, owner, digest, signature),
    fees: new ChainFees(quoter),
    balances,
    headBlock: () => heads.latest?.number ?? null,
    rpc,
    deployment,
    heads,
    stop: () => void stopHeads(),
  };
}
