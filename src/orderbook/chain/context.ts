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
import { readSpendable, ownerTokenKey, type OwnerToken } from './balances.js';
import { FeeQuoter } from './fee.js';
import { isValidEip1271Signature } from './eip1271.js';

/** The chain's newest block, as the head watcher last saw it. */
export interface Head {
  number: number;
  hash: string;
}

/**
 * Polls the newest block and tells listeners whenever it changes: a new number, or the same number with
 * another hash (a reorganisation that replaced the head without making the chain longer).
 */
export class HeadWatcher {
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<(head: Head) => void>();
  latest: Head | undefined;

  constructor(
    private readonly rpc: ChainRpc,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    const poll = async () => {
      try {
        const block = (await this.rpc.call('eth_getBlockByNumber', ['latest', false])) as { number?: unknown; hash?: unknown } | null;
        if (!block || typeof block.hash !== 'string') throw new Error('the node has no latest block');
        const head = { number: fromQuantity(block.number, 'block number'), hash: block.hash.toLowerCase() };
        if (head.hash !== this.latest?.hash) {
          this.latest = head;
          for (const listener of this.listeners) listener(head);
        }
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, 'head poll failed');
      }
      if (this.timer) this.timer = setTimeout(poll, this.intervalMs);
    };
    this.timer = setTimeout(poll, 0);
  }

  onBlock(listener: (head: Head) => void): () => void {
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
 * An amount and the number of the read that found it: a read never replaces what a read started after it
 * found (block numbers would not do: a reorganisation can make the chain shorter).
 */
interface Known {
  amount: bigint;
  read: number;
}

/**
 * Spendable amounts (min(balanceOf, allowance to the vault relayer)). Reads for order creation arriving in
 * the same tick share one JSON-RPC batch. The pairs of open orders are read again at every new head, and a
 * pair that starts being tracked is read at once: its order may have just become open (a presignature, a
 * trade reverted by a reorganisation) and must not wait for the next block, which on a quiet dev chain may
 * never come, nor be judged by an amount read before its last change.
 */
export class ChainBalances implements SpendableBalances {
  version = 0;
  private readonly amounts = new Map<string, Known>();
  private tracked: OwnerToken[] = [];
  private pending: PendingRead[] = [];
  private readonly listeners = new Set<() => void>();
  /** A refresh is asked for while one runs: run another when it ends (it may have read an older head). */
  private refreshWanted = false;
  private refreshing: Promise<void> | undefined;
  private reads = 0;

  constructor(
    private readonly rpc: ChainRpc,
    private readonly vaultRelayer: string,
    private readonly logger: Logger,
  ) {}

  get(owner: string, token: string): bigint | undefined {
    return this.amounts.get(ownerTokenKey(owner, token))?.amount;
  }

  fetch(owner: string, token: string): Promise<bigint> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => void this.flush());
      this.pending.push({ pair: { owner, token }, resolve, reject });
    });
  }

  track(pairs: Iterable<readonly [string, string]>): void {
    const before = new Set(this.tracked.map((p) => ownerTokenKey(p.owner, p.token)));
    this.tracked = [...pairs].map(([owner, token]) => ({ owner, token }));
    if (this.tracked.some((p) => !before.has(ownerTokenKey(p.owner, p.token)))) void this.refresh();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Reads the tracked pairs at the head; resolves when a read that started after this call has ended. A
   * failed read keeps the amounts known so far.
   */
  refresh(): Promise<void> {
    this.refreshWanted = true;
    this.refreshing ??= this.refreshLoop().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async refreshLoop(): Promise<void> {
    while (this.refreshWanted) {
      this.refreshWanted = false;
      if (this.tracked.length === 0) continue;
      try {
        const readNumber = ++this.reads;
        const read = await readSpendable(this.rpc, this.vaultRelayer, this.tracked);
        this.remember(readNumber, [...read.amounts.entries()].map(([key, s]) => [key, s.spendable]));
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, 'balance refresh failed');
      }
    }
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    try {
      const readNumber = ++this.reads;
      const read = await readSpendable(this.rpc, this.vaultRelayer, batch.map((p) => p.pair));
      this.remember(readNumber, [...read.amounts.entries()].map(([key, s]) => [key, s.spendable]));
      for (const p of batch) p.resolve(read.amounts.get(ownerTokenKey(p.pair.owner, p.pair.token))!.spendable);
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }

  private remember(read: number, entries: [string, bigint][]): void {
    let changed = false;
    for (const [key, amount] of entries) {
      const known = this.amounts.get(key);
      if (known && known.read > read) continue;
      this.amounts.set(key, { amount, read });
      if (known?.amount !== amount) changed = true;
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
  heads.onBlock(() => void balances.refresh());
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
