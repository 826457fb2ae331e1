/**
 * GPv2Settlement.settle's arguments, from orders, their signatures and uniform clearing prices: the
 * encoding the dev solver sends and the tests' solver (test/support/solver.ts) reuses, so that both settle
 * the same way. The facts are the contract's (GPv2Trade.extractFlags, GPv2Signing's per-scheme bytes).
 */
import { ZeroAddress, concat } from 'ethers';

export type OrderKind = 'sell' | 'buy';
export type SigningScheme = 'eip712' | 'ethsign' | 'eip1271' | 'presign';

/** An order as signed: what the contract hashes again from the trade. */
export interface SignedOrderData {
  sellToken: string;
  buyToken: string;
  receiver?: string | null;
  sellAmount: bigint;
  buyAmount: bigint;
  validTo: number;
  appData: string;
  feeAmount: bigint;
  kind: OrderKind;
  partiallyFillable: boolean;
  sellTokenBalance?: 'erc20' | 'external' | 'internal';
  buyTokenBalance?: 'erc20' | 'internal';
}

/**
 * The bits of GPv2Trade.extractFlags: 0 kind (1 = buy), 1 partially fillable, 2-3 sell token balance
 * (00 erc20, 10 external, 11 internal), 4 buy token balance (1 = internal), 5-6 signing scheme
 * (00 eip712, 01 ethsign, 10 eip1271, 11 presign).
 */
export function tradeFlags(order: SignedOrderData, scheme: SigningScheme): number {
  const sellBalance = { erc20: 0b0000, external: 0b1000, internal: 0b1100 }[order.sellTokenBalance ?? 'erc20'];
  const buyBalance = order.buyTokenBalance === 'internal' ? 0b10000 : 0;
  const schemeBits = { eip712: 0, ethsign: 1, eip1271: 2, presign: 3 }[scheme] << 5;
  return (order.kind === 'buy' ? 1 : 0) | (order.partiallyFillable ? 2 : 0) | sellBalance | buyBalance | schemeBits;
}

/** The trade's `signature` bytes per scheme. */
export const tradeSignature = {
  ecdsa: (signature: string) => signature,
  eip1271: (wallet: string, walletSignature: string) => concat([wallet, walletSignature]),
  presign: (owner: string) => owner.toLowerCase(),
};

/** The trade's signature bytes for an order as the order book returns it (its owner, scheme and signature). */
export function tradeSignatureOf(owner: string, scheme: SigningScheme, signature: string): string {
  if (scheme === 'presign') return tradeSignature.presign(owner);
  if (scheme === 'eip1271') return tradeSignature.eip1271(owner, signature);
  return tradeSignature.ecdsa(signature);
}

export interface SettledTrade {
  order: SignedOrderData;
  scheme: SigningScheme;
  /** Already encoded for the scheme (see tradeSignature). */
  signature: string;
  /** For partially fillable orders: sell amount (sell order) or buy amount (buy order) to execute. */
  executedAmount?: bigint;
}

export interface EncodedTrade {
  sellTokenIndex: number;
  buyTokenIndex: number;
  receiver: string;
  sellAmount: bigint;
  buyAmount: bigint;
  validTo: number;
  appData: string;
  feeAmount: bigint;
  flags: number;
  executedAmount: bigint;
  signature: string;
}

/** settle(tokens, clearingPrices, trades, interactions) with no interactions. */
export interface EncodedSettlement {
  tokens: string[];
  clearingPrices: bigint[];
  trades: EncodedTrade[];
  interactions: [[], [], []];
}

/** The settlement of `trades` at `clearingPrices` (token → price, any case); throws when a token has no price. */
export function encodeSettlement(trades: readonly SettledTrade[], clearingPrices: Record<string, bigint>): EncodedSettlement {
  const tokens: string[] = [];
  const index = (token: string) => {
    const i = tokens.indexOf(token.toLowerCase());
    return i >= 0 ? i : tokens.push(token.toLowerCase()) - 1;
  };
  const encoded = trades.map(({ order, scheme, signature, executedAmount }) => ({
    sellTokenIndex: index(order.sellToken),
    buyTokenIndex: index(order.buyToken),
    receiver: order.receiver ?? ZeroAddress,
    sellAmount: order.sellAmount,
    buyAmount: order.buyAmount,
    validTo: order.validTo,
    appData: order.appData,
    feeAmount: order.feeAmount,
    flags: tradeFlags(order, scheme),
    executedAmount: executedAmount ?? 0n,
    signature,
  }));
  const prices = tokens.map((token) => {
    const price = Object.entries(clearingPrices).find(([t]) => t.toLowerCase() === token)?.[1];
    if (price === undefined) throw new Error(`no clearing price for ${token}`);
    return price;
  });
  return { tokens, clearingPrices: prices, trades: encoded, interactions: [[], [], []] };
}
