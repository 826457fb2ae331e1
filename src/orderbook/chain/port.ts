/**
 * What the order book needs from its chain, in one place: the settlement contract (the EIP-712 domain),
 * EIP-1271 owners' isValidSignature, the fee rule's price of a sell token, and owners' spendable balances.
 * The chain integration (src/orderbook/chain/) provides it, backed by the gateway's upstream of the
 * order book network.
 */
import type { FeeInformation } from '../../generated/orderbook/fee-information.js';

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
  /** Reads the amount now (for order creation) and remembers it; rejects when the chain cannot be read. */
  fetch(owner: string, token: string): Promise<bigint>;
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
