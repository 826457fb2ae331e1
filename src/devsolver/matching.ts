/**
 * The dev solver's rules, apart from any I/O: which orders of an auction cross, and for a crossing pair the
 * clearing prices and executed amounts that GPv2Settlement.settle accepts, so that a settlement either goes
 * through or was never worth sending.
 *
 * A match is a coincidence of wants on one token pair: order A sells T1 for T2, order B sells T2 for T1. A
 * pays x of T1 that B receives, B pays y of T2 that A receives. The uniform clearing prices are
 * p(T1) = y and p(T2) = x: then the contract's own arithmetic (computeTradeExecution: a sell order's buy
 * amount is executedSell·p(sell)/p(buy) rounded up, a buy order's sell amount executedBuy·p(buy)/p(sell)
 * rounded down) gives exactly x and y, with no rounding left for the settlement contract to cover. Each
 * order's limit is the contract's check sellAmount·p(sell) ≥ buyAmount·p(buy), in integers, so it holds to
 * the wei. Fees are the signed feeAmount, charged by the contract in proportion for partial fills.
 */

export type OrderKind = 'sell' | 'buy';

/** An auction order as the rules need it: amounts in atoms. */
export interface SolverOrder {
  uid: string;
  sellToken: string;
  buyToken: string;
  sellAmount: bigint;
  buyAmount: bigint;
  /** The signed fee (0 for today's orders). */
  feeAmount: bigint;
  kind: OrderKind;
  partiallyFillable: boolean;
  /** Executed so far: the sell amount before fees (sell order) or the buy amount (buy order). */
  executed: bigint;
  /** What the owner can spend of the sell token (min of balance and allowance), when known. */
  available?: bigint;
}

export interface MatchedTrade {
  order: SolverOrder;
  /** The `executedAmount` of the GPv2 trade: for a partially fillable order its sell (sell order) or buy (buy order) amount; 0 otherwise. */
  executedAmount: bigint;
  /** What the owner gives, fee excluded, and receives. */
  sold: bigint;
  bought: bigint;
  /** The fee the contract takes on top of `sold`. */
  fee: bigint;
}

export interface Match {
  /** [T1, T2]: A sells T1, B sells T2. */
  tokens: [string, string];
  /** Clearing prices in the order of `tokens`: [y, x]. */
  prices: [bigint, bigint];
  trades: [MatchedTrade, MatchedTrade];
}

/** A closed range of integers; `hi` undefined is unbounded. */
interface Range {
  lo: bigint;
  hi: bigint | undefined;
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
const max = (a: bigint, b: bigint) => (a > b ? a : b);
const minHi = (a: bigint | undefined, b: bigint | undefined) => (a === undefined ? b : b === undefined ? a : min(a, b));
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
const gcd = (a: bigint, b: bigint): bigint => {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
};

/** The contract's limit check: sellAmount·p(sell) ≥ buyAmount·p(buy). */
export function limitRespected(order: Pick<SolverOrder, 'sellAmount' | 'buyAmount'>, sellPrice: bigint, buyPrice: bigint): boolean {
  return order.sellAmount * sellPrice >= order.buyAmount * buyPrice;
}

/** Whether two orders of opposite direction on one pair have limit prices that cross: bA/sA ≤ sB/bB. */
export function crosses(a: SolverOrder, b: SolverOrder): boolean {
  return a.sellToken === b.buyToken && a.buyToken === b.sellToken && a.buyAmount * b.buyAmount <= a.sellAmount * b.sellAmount;
}

/** Whether an order can take part at all: amounts non-zero and something left to execute. */
export function executable(order: SolverOrder): boolean {
  if (order.sellAmount <= 0n || order.buyAmount <= 0n || order.sellToken === order.buyToken) return false;
  const total = order.kind === 'sell' ? order.sellAmount : order.buyAmount;
  if (order.partiallyFillable) return order.executed < total;
  return order.executed === 0n;
}

/**
 * The order's ranges of what it pays (fee excluded) and receives, from its kind, fill rule, what is left
 * and what its owner can spend; undefined when it cannot trade.
 */
function ranges(order: SolverOrder): { pay: Range; receive: Range } | undefined {
  if (!executable(order)) return undefined;
  const { sellAmount: s, buyAmount: b, feeAmount: f, available } = order;
  if (order.kind === 'sell') {
    if (!order.partiallyFillable) {
      if (available !== undefined && s + f > available) return undefined;
      return { pay: { lo: s, hi: s }, receive: { lo: 1n, hi: undefined } };
    }
    // x + floor(f·x/s) ≤ x·(s+f)/s ≤ available.
    const cap = available === undefined ? undefined : (available * s) / (s + f);
    return { pay: { lo: 1n, hi: minHi(s - order.executed, cap) }, receive: { lo: 1n, hi: undefined } };
  }
  // A buy order's proportional fee is at most its whole fee.
  const payCap = available === undefined ? undefined : available - f;
  if (!order.partiallyFillable) return { pay: { lo: 1n, hi: payCap }, receive: { lo: b, hi: b } };
  return { pay: { lo: 1n, hi: payCap }, receive: { lo: 1n, hi: b - order.executed } };
}

const intersect = (p: Range, q: Range): Range => ({ lo: max(p.lo, q.lo), hi: minHi(p.hi, q.hi) });
const within = (v: bigint, r: Range) => v >= r.lo && (r.hi === undefined || v <= r.hi);

/**
 * The volumes (x, y) of a match, the largest x the constraints allow: x ∈ X, y ∈ Y, bA·x ≤ sA·y (A's
 * limit) and bB·y ≤ sB·x (B's limit). Undefined when no pair of integers fits.
 */
function volumes(a: SolverOrder, b: SolverOrder, X: Range, Y: Range): { x: bigint; y: bigint } | undefined {
  const { sellAmount: sA, buyAmount: bA } = a;
  const { sellAmount: sB, buyAmount: bB } = b;
  if ((X.hi !== undefined && X.lo > X.hi) || (Y.hi !== undefined && Y.lo > Y.hi)) return undefined;
  // y ≥ bA·x/sA and y ≤ Y.hi bound x from above.
  const xMax = minHi(X.hi, Y.hi === undefined ? undefined : (Y.hi * sA) / bA);
  if (xMax === undefined || xMax < X.lo || xMax <= 0n) return undefined;
  const fits = (x: bigint, y: bigint) => x > 0n && y > 0n && within(x, X) && within(y, Y) && bA * x <= sA * y && bB * y <= sB * x;

  const lo = max(Y.lo, ceilDiv(bA * xMax, sA));
  const hi = minHi(Y.hi, (sB * xMax) / bB)!;
  if (lo <= hi) {
    // The middle of the range shares the surplus between the two orders.
    const y = lo + (hi - lo) / 2n;
    if (fits(xMax, y)) return { x: xMax, y };
  }
  // The real range held no integer at xMax: an x at which one of the two limits is met exactly does.
  for (const [num, den] of [
    [bA, sA],
    [sB, bB],
  ] as const) {
    const step = den / gcd(num, den);
    const x = (xMax / step) * step;
    const y = (num * x) / den;
    if (fits(x, y)) return { x, y };
  }
  return undefined;
}

function trade(order: SolverOrder, sold: bigint, bought: bigint): MatchedTrade {
  const sell = order.kind === 'sell';
  let fee = order.feeAmount;
  if (order.partiallyFillable) fee = sell ? (order.feeAmount * sold) / order.sellAmount : (order.feeAmount * bought) / order.buyAmount;
  return { order, executedAmount: order.partiallyFillable ? (sell ? sold : bought) : 0n, sold, bought, fee };
}

/** The settlement of two crossing orders of opposite direction, or undefined when none respects both. */
export function matchPair(a: SolverOrder, b: SolverOrder): Match | undefined {
  if (!crosses(a, b)) return undefined;
  const ra = ranges(a);
  const rb = ranges(b);
  if (!ra || !rb) return undefined;
  const v = volumes(a, b, intersect(ra.pay, rb.receive), intersect(ra.receive, rb.pay));
  if (!v) return undefined;
  return {
    tokens: [a.sellToken, b.sellToken],
    prices: [v.y, v.x],
    trades: [trade(a, v.x, v.y), trade(b, v.y, v.x)],
  };
}

/** a's limit price (buy per sell) is lower than b's: bA/sA < bB/sB. */
const cheaper = (a: SolverOrder, b: SolverOrder) => a.buyAmount * b.sellAmount < b.buyAmount * a.sellAmount;

/**
 * The pairs of orders worth trying, best first: on each token pair, the cheapest asks against the most
 * generous bids, at most `maxPairs` in all, only pairs whose limits cross and whose orders can trade.
 */
export function crossingPairs(orders: readonly SolverOrder[], maxPairs: number): [SolverOrder, SolverOrder][] {
  const sides = new Map<string, SolverOrder[]>();
  for (const order of orders) {
    if (!executable(order)) continue;
    const key = `${order.sellToken}/${order.buyToken}`;
    let side = sides.get(key);
    if (!side) sides.set(key, (side = []));
    side.push(order);
  }
  const pairs: [SolverOrder, SolverOrder][] = [];
  for (const [key, asks] of sides) {
    const [t1, t2] = key.split('/');
    if (t1 > t2) continue; // each token pair once, from its lower token's side
    const bids = sides.get(`${t2}/${t1}`);
    if (!bids) continue;
    asks.sort((p, q) => (cheaper(p, q) ? -1 : cheaper(q, p) ? 1 : 0));
    // For B the generous ones give the most T2 per T1: the cheapest as an ask of T2.
    bids.sort((p, q) => (cheaper(p, q) ? -1 : cheaper(q, p) ? 1 : 0));
    for (const a of asks) {
      if (pairs.length >= maxPairs) return pairs;
      // Sorted: once the best bid does not cross this ask, no bid crosses it, nor any later ask.
      if (!crosses(a, bids[0])) break;
      for (const b of bids) {
        if (!crosses(a, b)) break;
        pairs.push([a, b]);
        if (pairs.length >= maxPairs) return pairs;
      }
    }
  }
  return pairs;
}
