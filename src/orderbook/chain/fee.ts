/**
 * Fee quotes for a sell token: the gas a trade costs, in the sell token.
 *
 *   minimalFee = ceil(gasPrice × gasPerTrade / price)
 *
 * where gasPrice is the chain's eth_gasPrice (native-token wei per gas) and price is the sell token's price
 * in native-token wei per base unit of the token (the unit of TOKEN_PRICES), so the division turns the
 * native-token cost into sell-token base units; rounding up makes the fee cover the cost. Prices come from:
 * 1. the native token itself (orderbook.nativeToken): 1;
 * 2. a Uniswap-V2-style pair with the native token (orderbook.tokenPricePools): reserveNative / reserveToken
 *    read on chain, when the pair answers and both reserves are non-zero;
 * 3. the static table (orderbook.tokenPrices, a decimal that may be fractional);
 * 4. built-in prices of the same form (the embedded dev chain's tokens), which the table overrides.
 * A token none of them prices is "not priceable" (the API answers 404).
 *
 * Each quote is valid until now + feeQuoteTtlSeconds. Order creation asks for the lowest unexpired quote of
 * a sell token, which is all that is kept of them (LowestFees: O(1) per quote, at most one candidate per
 * second of the TTL per token). It is kept in memory: per process, so with several API instances an order
 * is held to the quotes of the instance it reaches (or to a fresh quote when none is kept).
 */
import { Interface } from 'ethers';
import type { OrderbookConfig } from '../../generated/config.js';
import { ChainError, resultOf, type ChainRpc } from './rpc.js';
import { LowestFees } from './lowest-fees.js';

/** The expiry granularity of the kept fees (lowest-fees.ts): one candidate per token per second of the TTL. */
const FEE_BUCKET_MS = 1_000;

export type FeeSettings = Pick<
  OrderbookConfig,
  'gasPerTrade' | 'feeRatioBps' | 'feeQuoteTtlSeconds' | 'tokenPrices' | 'tokenPricePools' | 'nativeToken'
>;

/** native-token wei per base unit of the token = numerator / denominator. */
export interface Price {
  numerator: bigint;
  denominator: bigint;
  source: 'native' | 'pool' | 'table';
}

export interface FeeQuote {
  sellToken: string;
  minimalFee: bigint;
  /** Basis points. */
  feeRatio: number;
  expirationDate: Date;
  gasPrice: bigint;
  price: Price;
}

export type FeeQuoteResult = { priceable: true; quote: FeeQuote } | { priceable: false; reason: string };

/** "2.5" → 25/10; null for anything that is not a non-negative decimal. */
export function parseDecimalPrice(text: string): { numerator: bigint; denominator: bigint } | null {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) return null;
  const fraction = match[2] ?? '';
  return { numerator: BigInt(match[1] + fraction), denominator: 10n ** BigInt(fraction.length) };
}

export function minimalFee(gasPrice: bigint, gasPerTrade: bigint, price: Pick<Price, 'numerator' | 'denominator'>): bigint {
  if (price.numerator <= 0n || price.denominator <= 0n) throw new ChainError('a price must be positive');
  const cost = gasPrice * gasPerTrade * price.denominator;
  return (cost + price.numerator - 1n) / price.numerator;
}

const pairInterface = new Interface([
  'function token0() view returns (address)',
  'function token1() view returns (address)',
  'function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)',
]);

export interface FeeQuoterOptions {
  now?: () => Date;
  /** token → price (tokenPrices' form) for tokens the configured sources leave unpriced. */
  builtInPrices?: Record<string, string>;
}

export class FeeQuoter {
  private readonly lowestFees = new LowestFees<FeeQuote>(FEE_BUCKET_MS);
  private readonly now: () => Date;
  private readonly tokenPrices: Map<string, string>;
  private readonly builtInPrices: Map<string, string>;
  private readonly pools: Map<string, string>;
  private readonly nativeToken: string | undefined;

  constructor(
    private readonly rpc: ChainRpc,
    private readonly settings: FeeSettings,
    options: FeeQuoterOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    const lowerKeys = (m: Record<string, string> | undefined) =>
      new Map(Object.entries(m ?? {}).map(([k, v]) => [k.toLowerCase(), v.toLowerCase()]));
    this.tokenPrices = lowerKeys(settings.tokenPrices);
    this.builtInPrices = lowerKeys(options.builtInPrices);
    this.pools = lowerKeys(settings.tokenPricePools);
    this.nativeToken = settings.nativeToken?.toLowerCase();
    if (this.pools.size > 0 && !this.nativeToken) throw new ChainError('price pools need the native token they pair with');
  }

  /**
   * The token's price now and, unless `withGasPrice` is false, the gas price, without keeping a quote
   * (today's POST /api/v1/quote and native prices use it); why not when nothing prices it. A table price
   * asked without the gas price reads nothing from the chain. ChainError when the chain cannot be read.
   */
  async price(
    sellToken: string,
    withGasPrice = true,
  ): Promise<{ priced: true; price: Price; gasPrice: bigint | null } | { priced: false; reason: string }> {
    const token = sellToken.toLowerCase();
    const pool = this.pools.get(token);
    const calls: { method: string; params: unknown[] }[] = withGasPrice ? [{ method: 'eth_gasPrice', params: [] }] : [];
    if (pool && token !== this.nativeToken) {
      const read = (fn: string) => ({ method: 'eth_call', params: [{ to: pool, data: pairInterface.encodeFunctionData(fn) }, 'latest'] });
      calls.push(read('token0'), read('token1'), read('getReserves'));
    }
    const answers = calls.length > 0 ? await this.rpc.batch(calls) : [];
    const gasPrice = withGasPrice ? BigInt(resultOf(answers[0], 'eth_gasPrice') as string) : null;
    const poolAnswers = withGasPrice ? answers.slice(1) : answers;

    const fromPool = pool ? this.poolPrice(token, poolAnswers) : null;
    const price = this.nativePrice(token) ?? (typeof fromPool === 'string' ? null : fromPool) ?? this.tablePrice(token);
    if (!price) {
      const why = typeof fromPool === 'string' ? ` (pool ${pool} ${fromPool})` : '';
      return { priced: false, reason: `no price for token ${token}${why}` };
    }
    return { priced: true, price, gasPrice };
  }

  /** A new quote, kept for lowestValidQuote; ChainError when the chain cannot be read. */
  async quote(sellToken: string): Promise<FeeQuoteResult> {
    const token = sellToken.toLowerCase();
    const priced = await this.price(token);
    if (!priced.priced) return { priceable: false, reason: priced.reason };
    const { price } = priced;
    const gasPrice = priced.gasPrice!;
    const now = this.now();
    const quote: FeeQuote = {
      sellToken: token,
      minimalFee: minimalFee(gasPrice, BigInt(this.settings.gasPerTrade), price),
      feeRatio: this.settings.feeRatioBps,
      expirationDate: new Date(now.getTime() + this.settings.feeQuoteTtlSeconds * 1_000),
      gasPrice,
      price,
    };
    this.lowestFees.add(token, quote.minimalFee, quote.expirationDate.getTime(), quote, now.getTime());
    return { priceable: true, quote };
  }

  /** Whether any price source is configured for the token (without asking the chain). */
  hasPriceSource(sellToken: string): boolean {
    const token = sellToken.toLowerCase();
    return token === this.nativeToken || this.pools.has(token) || this.tokenPrices.has(token) || this.builtInPrices.has(token);
  }

  /** The quote with the lowest minimalFee among those for `sellToken` still valid at `at`. */
  lowestValidQuote(sellToken: string, at: Date = this.now()): FeeQuote | undefined {
    return this.lowestFees.lowest(sellToken.toLowerCase(), at.getTime(), this.now().getTime());
  }

  /** How many quotes of `sellToken` are kept (at most one per second of the TTL). */
  keptQuotes(sellToken: string): number {
    return this.lowestFees.size(sellToken.toLowerCase());
  }

  private nativePrice(token: string): Price | null {
    return token === this.nativeToken ? { numerator: 1n, denominator: 1n, source: 'native' } : null;
  }

  /** The pool's price, or why it gives none. */
  private poolPrice(token: string, answers: { result?: unknown; error?: unknown }[]): Price | string {
    if (answers.some((a) => a.error !== undefined || typeof a.result !== 'string')) return 'does not answer as a pair';
    try {
      const [token0] = pairInterface.decodeFunctionResult('token0', answers[0].result as string);
      const [token1] = pairInterface.decodeFunctionResult('token1', answers[1].result as string);
      const [reserve0, reserve1] = pairInterface.decodeFunctionResult('getReserves', answers[2].result as string);
      const pair = [String(token0).toLowerCase(), String(token1).toLowerCase()];
      let reserveToken: bigint, reserveNative: bigint;
      if (pair[0] === token && pair[1] === this.nativeToken) [reserveToken, reserveNative] = [reserve0, reserve1];
      else if (pair[1] === token && pair[0] === this.nativeToken) [reserveToken, reserveNative] = [reserve1, reserve0];
      else return 'does not pair the token with the native token';
      if (reserveToken === 0n || reserveNative === 0n) return 'has no reserves';
      return { numerator: reserveNative, denominator: reserveToken, source: 'pool' };
    } catch {
      return 'does not answer as a pair'; // 0x from an address without code
    }
  }

  private tablePrice(token: string): Price | null {
    const text = this.tokenPrices.get(token) ?? this.builtInPrices.get(token);
    const parsed = text === undefined ? null : parseDecimalPrice(text);
    return parsed && parsed.numerator > 0n ? { ...parsed, source: 'table' } : null;
  }
}
