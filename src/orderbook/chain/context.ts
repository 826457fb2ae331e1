/**
 * The order book's ChainContext on a live chain: the settlement contract (deployed by the service on an
 * embedded dev chain, the configured or canonical one on an external upstream), owners' spendable balances
 * kept current block by block, fee quotes, and EIP-1271 checks, all through the gateway's upstream pool of
 * the order book network.
 */
import type { OrderbookConfig } from '../../config.js';
import { CANONICAL_SETTLEMENT } from '../../config.js';
import type { Logger } from '../../logger.js';
import type { Network } from '../../gateway/network.js';
import type { ChainContext, FeeQuotes, SpendableBalances } from '../chain-context.js';
import type { FeeInformation } from '../../generated/orderbook/fee-information.js';
import { chainRpcOverPool, fromQuantity, type ChainRpc } from './rpc.js';
import { bootstrapDevChain, resolveSettlement, type SettlementDeployment } from './devchain.js';
import { readSpendable, ownerTokenKey, type OwnerToken, type Spendable } from './balances.js';
import { FeeQuoter } from './fee.js';
import { isValidEip1271Signature } from './eip1271.js';

/** Polls the head block number and tells listeners of each new one. */
export class HeadWatcher {
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<(block: number) => void>();
  latest = -1;

  constructor(
    private readonly rpc: ChainRpc,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    const poll = async () => {
      try {
        const block = fromQuantity(await this.rpc.call('eth_blockNumber', []), 'eth_blockNumber');
        if (block !== this.latest) {
          this.latest = block;
          for (const listener of this.listeners) listener(block);
        }
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, 'head poll failed');
      }
      if (this.timer) this.timer = setTimeout(poll, this.intervalMs);
    };
    this.timer = setTimeout(poll, 0);
  }

  onBlock(listener: (block: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

interface PendingRead {
  pair: OwnerToken;
  resolve: (amount: bigint) => void;
  reject: (err: unknown) => void;
}

/**
 * Spendable amounts (min(balanceOf, allowance to the vault relayer)). Reads for order creation arriving in
 * the same tick share one head lookup and one JSON-RPC batch, and an amount already read at the current
 * head block is taken as it is (it cannot have changed within the block), so a burst of orders from the
 * same owners costs one eth_blockNumber per tick. The pairs of open orders are read again at every new block.
 */
export class ChainBalances implements SpendableBalances {
  version = 0;
  private readonly amounts = new Map<string, bigint>();
  /** The block each known amount was read at. */
  private readonly readAt = new Map<string, number>();
  private tracked: OwnerToken[] = [];
  private pending: PendingRead[] = [];
  private readonly listeners = new Set<() => void>();
  private refreshing = false;

  constructor(
    private readonly rpc: ChainRpc,
    private readonly vaultRelayer: string,
    private readonly logger: Logger,
  ) {}

  get(owner: string, token: string): bigint | undefined {
    return this.amounts.get(ownerTokenKey(owner, token));
  }

  fetch(owner: string, token: string): Promise<bigint> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => void this.flush());
      this.pending.push({ pair: { owner, token }, resolve, reject });
    });
  }

  track(pairs: Iterable<readonly [string, string]>): void {
    this.tracked = [...pairs].map(([owner, token]) => ({ owner, token }));
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reads the tracked pairs at `block`; a failed read keeps the amounts known so far. */
  async refresh(block: number): Promise<void> {
    if (this.refreshing || this.tracked.length === 0) return;
    this.refreshing = true;
    try {
      const read = await readSpendable(this.rpc, this.vaultRelayer, this.tracked, { block });
      this.remember(read.block, read.amounts);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, block }, 'balance refresh failed');
    } finally {
      this.refreshing = false;
    }
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    try {
      const block = fromQuantity(await this.rpc.call('eth_blockNumber', []), 'eth_blockNumber');
      const stale = batch.filter((p) => this.readAt.get(ownerTokenKey(p.pair.owner, p.pair.token)) !== block);
      if (stale.length > 0) {
        const read = await readSpendable(this.rpc, this.vaultRelayer, stale.map((p) => p.pair), { block });
        this.remember(read.block, read.amounts);
      }
      for (const p of batch) p.resolve(this.amounts.get(ownerTokenKey(p.pair.owner, p.pair.token))!);
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }

  /** Keeps amounts read at `block`, unless a newer read of the same pair is already known. */
  private remember(block: number, amounts: Map<string, Spendable>): void {
    let changed = false;
    for (const [key, { spendable }] of amounts) {
      if ((this.readAt.get(key) ?? -1) > block) continue;
      this.readAt.set(key, block);
      if (this.amounts.get(key) !== spendable) {
        this.amounts.set(key, spendable);
        changed = true;
      }
    }
    if (!changed) return;
    this.version++;
    for (const listener of this.listeners) listener();
  }
}

/** GET /tokens/{sellToken}/fee and the minimal fee of new orders, from FeeQuoter. */
class ChainFees implements FeeQuotes {
  constructor(private readonly quoter: FeeQuoter) {}

  async quote(token: string): Promise<FeeInformation | null> {
    if (!this.quoter.hasPriceSource(token)) return null;
    const result = await this.quoter.quote(token);
    if (!result.priceable) return null;
    const { quote } = result;
    return { expirationDate: quote.expirationDate.toISOString(), minimalFee: quote.minimalFee.toString(), feeRatio: quote.feeRatio };
  }

  async minimalFee(token: string): Promise<bigint | null> {
    const lowest = this.quoter.lowestValidQuote(token);
    if (lowest) return lowest.minimalFee;
    if (!this.quoter.hasPriceSource(token)) return null;
    const result = await this.quoter.quote(token);
    return result.priceable ? result.quote.minimalFee : null;
  }
}

export interface LiveChain extends ChainContext {
  rpc: ChainRpc;
  deployment: SettlementDeployment;
  heads: HeadWatcher;
  balances: ChainBalances;
  stop(): void;
}

export interface ChainOptions {
  network: Network;
  config: OrderbookConfig;
  logger: Logger;
  /** How often the head block is polled (balances are read again at each new block). */
  pollIntervalMs?: number;
}

async function settlementOf(rpc: ChainRpc, network: Network, config: OrderbookConfig): Promise<SettlementDeployment> {
  if (config.settlementContract) return resolveSettlement(rpc, config.settlementContract);
  return network.anvil ? bootstrapDevChain(rpc) : resolveSettlement(rpc, CANONICAL_SETTLEMENT);
}

export async function openChain({ network, config, logger, pollIntervalMs = 500 }: ChainOptions): Promise<LiveChain> {
  const log = logger.child({ component: 'orderbook-chain', network: network.name });
  const rpc = chainRpcOverPool(network.pool);
  const deployment = await settlementOf(rpc, network, config);
  // A restarted embedded anvil is a new, empty chain: deploy the contracts again (same addresses).
  network.anvil?.on('restarted', () => {
    settlementOf(rpc, network, config).then(
      () => log.warn('embedded chain restarted empty: dev contracts deployed again'),
      (err: Error) => log.error({ err: err.message }, 'dev chain bootstrap after restart failed'),
    );
  });
  const heads = new HeadWatcher(rpc, pollIntervalMs, log);
  const balances = new ChainBalances(rpc, deployment.vaultRelayer, log);
  heads.onBlock((block) => void balances.refresh(block));
  heads.start();
  const quoter = new FeeQuoter(rpc, config);
  log.info({ settlement: deployment.settlement, vaultRelayer: deployment.vaultRelayer }, 'settlement contract');
  return {
    chainId: deployment.chainId,
    settlement: deployment.settlement,
    vaultRelayer: deployment.vaultRelayer,
    eip1271: (owner, digest, signature) => isValidEip1271Signature(rpc, owner, digest, signature),
    fees: new ChainFees(quoter),
    balances,
    rpc,
    deployment,
    heads,
    stop: () => heads.stop(),
  };
}
