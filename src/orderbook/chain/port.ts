/**
 * The order book's chain port, in one place. Two sides:
 * - OrderbookNetwork: what the order book is given (the service wires it from the gateway's network, in
 *   src/wiring/orderbook-network.ts): JSON-RPC calls with failover, new heads, and, on the embedded dev chain, a
 *   hook that deploys the dev contracts and says when the chain restarted empty. The order book imports
 *   nothing of the gateway.
 * - ChainContext: what the use cases need, built on it (chain/live.ts): the settlement contract (the
 *   EIP-712 domain), EIP-1271 owners' isValidSignature, the fee rule's price of a sell token, and owners'
 *   spendable balances.
 */
import type { FeeInformation } from '../../generated/orderbook/fee-information.js';
import type { ChainRpc } from './rpc.js';
import type { SettlementDeployment } from './settlement.js';

/** A block as the head source reports it. */
export interface ChainHead {
  number: number;
  hash: string;
}

/** The newest block, and a call on each change. */
export interface HeadSource {
  readonly latest: ChainHead | undefined;
  onBlock(listener: (head: ChainHead) => void): () => void;
}

export interface DevChainDeployment extends SettlementDeployment {
  tokenPrices?: Record<string, string>;
}

/** The embedded dev chain, when the order book network is one. */
export interface DevChainHook {
  /**
   * Deploys the settlement contract and what orders need, where not there yet; gives the deployment and
   * the built-in prices of the dev chain's tokens (token → native-token wei per base unit, as TOKEN_PRICES).
   */
  bootstrap(rpc: ChainRpc): Promise<DevChainDeployment>;
  /** Calls `listener` each time the dev chain restarted empty (its contracts are gone). */
  onRestart(listener: () => void): void;
}

/** The order book network as the service gives it to the order book. */
export interface OrderbookNetwork {
  /** The network's name (for logs and messages). */
  name: string;
  rpc: ChainRpc;
  heads: HeadSource;
  devChain?: DevChainHook;
}

export interface FeeQuotes {
  /** A quote for selling `token` (GET /api/v1/tokens/{sellToken}/fee); null when it cannot be priced. */
  quote(token: string): Promise<FeeInformation | null>;
  /**
   * The minimal fee an order selling `token` must pay now: the lowest unexpired quote, else the current
   * one; null when the token cannot be priced (then no minimum applies).
   */
  minimalFee(token: string): Promise<bigint | null>;
  /**
   * The token's price in the native token (atoms per atom) and, when `withGasPrice`, the gas price, from
   * the fee's sources, for today's quotes and native prices; null when nothing prices it. Absent: no token
   * can be priced.
   */
  nativePrice?(
    token: string,
    withGasPrice: boolean,
  ): Promise<{ price: { numerator: bigint; denominator: bigint }; gasPrice: bigint | null } | null>;
}

export interface SpendableBalances {
  /** Bumped whenever a known amount changes, so that views built from them know to rebuild. */
  readonly version: number;
  /** min(balanceOf, allowance to the vault relayer) of `token` for `owner`, if known. */
  get(owner: string, token: string): bigint | undefined;
  /**
   * The amount read at the block the head source reports as the newest, if it was read there (none is read
   * now): a new order of an owner already read at that block is checked without a call to the node.
   */
  atHead(owner: string, token: string): bigint | undefined;
  /** Reads the amount at the node's newest block now (for order creation) and remembers it; rejects when the chain cannot be read. */
  fetch(owner: string, token: string): Promise<bigint>;
  /**
   * The balance and the allowance the amount known now is the smaller of, read together with it (no call):
   * a refused order is told which of the two is short. Absent, or undefined: not known.
   */
  funds?(owner: string, token: string): { balance: bigint; allowance: bigint } | undefined;
  /** The (owner, token) pairs to keep current on new blocks: those of the open orders. */
  track(pairs: Iterable<readonly [owner: string, token: string]>): void;
  onChange(listener: () => void): () => void;
}

export interface ChainContext {
  chainId: number;
  /** The GPv2Settlement contract: the domain's verifyingContract. */
  settlement: string;
  vaultRelayer: string | null;
  /** Whether the eip1271 owner contract accepts `signature` for `digest` (isValidSignature). */
  eip1271(owner: string, digest: string, signature: string): Promise<boolean>;
  fees: FeeQuotes;
  balances: SpendableBalances;
  /** The newest block number seen, if known (GET /api/v1/auction's block). */
  headBlock?(): number | null;
}
