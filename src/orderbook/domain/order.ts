/**
 * Order creation: from the OrderCreation body to a validated order with its UID and owner, with the errors
 * of the CoW Protocol order book. Everything here is pure; what needs the chain takes its numbers as
 * arguments (the minimal fee, the available balance) or the caller's eth_call (eip1271).
 *
 * Checks run cheapest first: the schema, the uint256 bounds, the order's own rules (ZeroAmount,
 * SameBuyAndSellToken, InsufficientValidTo, SellAmountOverflow), then the signature (InvalidSignature,
 * MissingFrom, WrongOwner). The order book then asks the chain (eip1271's InvalidEip1271Signature through
 * chain/eip1271.ts, InsufficientBalance), the fee quotes (InsufficientFee, for a non-zero feeAmount only)
 * and the book (DuplicatedOrder).
 */
import { validator } from '../../shared/schemas.js';
import type { OrderCreation } from '../../generated/orderbook/order-creation.js';
import { orderDigest, packOrderUid, unpackOrderUid, type OrderData } from './eip712.js';
import { orderbookErrors } from './errors.js';
import { normalizeEcdsaSignature, presignOwner, recoverEcdsaSigner, type SigningScheme } from './signature.js';

export const UINT256_MAX = (1n << 256n) - 1n;

/** An OrderCreation body parsed into domain types: addresses and hex lowercase, amounts bigint, defaults set. */
export interface SignedOrder extends OrderData {
  signingScheme: SigningScheme;
  signature: string;
  /** The owner the client names, if any (lowercase). */
  from: string | null;
}

/** An order that passed every check that needs neither the book nor the chain. */
export interface ValidatedOrder extends OrderData {
  uid: string;
  owner: string;
  /** The EIP-712 signing digest (the first 32 bytes of the UID). */
  digest: string;
  signingScheme: SigningScheme;
  /** Lowercase; eip712 and ethsign signatures with v normalised to 27/28, as the contract takes them. */
  signature: string;
}

export interface OrderValidationContext {
  /** The settlement contract's EIP-712 domain separator. */
  domainSeparator: string;
  /** Now, in Unix seconds. */
  now: number;
  /** How far in the future validTo must at least be, in seconds. */
  minValidToSeconds: number;
}

const isOrderCreation = validator<OrderCreation>('orderbook/order-creation.schema.json');

function uint256(value: string, field: string): bigint {
  const amount = BigInt(value);
  if (amount > UINT256_MAX) throw orderbookErrors.invalidOrderData(`order.${field} exceeds 2^256-1`);
  return amount;
}

/** Checks an OrderCreation body against its schema and the uint256 bounds; MissingOrderData/InvalidOrderData. */
export function parseOrderCreation(body: unknown): SignedOrder {
  if (!isOrderCreation(body)) throw orderbookErrors.fromSchema(isOrderCreation.errors, 'order');
  return {
    sellToken: body.sellToken.toLowerCase(),
    buyToken: body.buyToken.toLowerCase(),
    receiver: body.receiver ? body.receiver.toLowerCase() : null,
    sellAmount: uint256(body.sellAmount, 'sellAmount'),
    buyAmount: uint256(body.buyAmount, 'buyAmount'),
    validTo: body.validTo,
    appData: body.appData.toLowerCase(),
    feeAmount: uint256(body.feeAmount, 'feeAmount'),
    kind: body.kind,
    partiallyFillable: body.partiallyFillable,
    sellTokenBalance: body.sellTokenBalance ?? 'erc20',
    buyTokenBalance: body.buyTokenBalance ?? 'erc20',
    signingScheme: body.signingScheme,
    signature: body.signature.toLowerCase(),
    from: body.from ? body.from.toLowerCase() : null,
  };
}

/** The order's own rules: ZeroAmount, SameBuyAndSellToken, InsufficientValidTo, SellAmountOverflow. */
export function checkOrderRules(order: OrderData, now: number, minValidToSeconds: number): void {
  if (order.sellAmount === 0n || order.buyAmount === 0n) throw orderbookErrors.zeroAmount();
  if (order.sellToken.toLowerCase() === order.buyToken.toLowerCase()) throw orderbookErrors.sameBuyAndSellToken();
  const minValidTo = now + minValidToSeconds;
  if (order.validTo < minValidTo) throw orderbookErrors.insufficientValidTo(minValidTo);
  // The settlement transfers sellAmount + feeAmount from the owner in one uint256.
  if (order.sellAmount + order.feeAmount > UINT256_MAX) throw orderbookErrors.sellAmountOverflow();
}

/**
 * The owner of a signed order with EIP-712 digest `digest`, and its signature as it is stored:
 * - eip712/ethsign: the recovered signer (InvalidSignature when none); `from`, if given, must equal it.
 * - eip1271: `from` is the owner (MissingFrom without it); its isValidSignature is asked later.
 * - presign: the 20-byte owner address in the signature (`from`, if given, must equal it), or an empty
 *   signature with `from` (what current CoW clients send).
 * A `from` that differs is WrongOwner.
 */
export function verifyOrderOwner(order: SignedOrder, digest: string): { owner: string; signature: string } {
  const { signingScheme: scheme, signature, from } = order;
  let owner: string;
  let stored = signature;
  switch (scheme) {
    case 'eip712':
    case 'ethsign': {
      const normalized = normalizeEcdsaSignature(signature);
      const signer = normalized && recoverEcdsaSigner(scheme, digest, normalized);
      if (!normalized || !signer) {
        throw orderbookErrors.invalidSignature(
          normalized ? `no ${scheme} signer can be recovered` : 'an ECDSA signature is 65 bytes r‖s‖v with v 27, 28, 0 or 1',
        );
      }
      owner = signer;
      stored = normalized;
      break;
    }
    case 'eip1271':
      if (!from) throw orderbookErrors.missingFrom(scheme);
      owner = from;
      break;
    case 'presign': {
      if (signature === '0x') {
        if (!from) throw orderbookErrors.missingFrom(scheme);
        owner = from;
        stored = from;
        break;
      }
      const named = presignOwner(signature);
      if (!named) throw orderbookErrors.invalidSignature("a presign signature is the owner's 20-byte address");
      owner = named;
      break;
    }
  }
  if (from && from !== owner) throw orderbookErrors.wrongOwner(from, owner);
  return { owner, signature: stored };
}

/** Everything of order creation that needs neither the book nor the chain, in one call. */
export function validateOrderCreation(body: unknown, context: OrderValidationContext): ValidatedOrder {
  const signed = parseOrderCreation(body);
  checkOrderRules(signed, context.now, context.minValidToSeconds);
  const digest = orderDigest(context.domainSeparator, signed);
  const { owner, signature } = verifyOrderOwner(signed, digest);
  // Field by field (`from` left out): on Node 20 `{ ...order, owner }` takes V8's slow path.
  return {
    sellToken: signed.sellToken,
    buyToken: signed.buyToken,
    receiver: signed.receiver,
    sellAmount: signed.sellAmount,
    buyAmount: signed.buyAmount,
    validTo: signed.validTo,
    appData: signed.appData,
    feeAmount: signed.feeAmount,
    kind: signed.kind,
    partiallyFillable: signed.partiallyFillable,
    sellTokenBalance: signed.sellTokenBalance,
    buyTokenBalance: signed.buyTokenBalance,
    signingScheme: signed.signingScheme,
    signature,
    owner,
    digest,
    uid: packOrderUid(digest, owner, signed.validTo),
  };
}

/**
 * The lowest fee an order must pay: the sell token's minimal fee (the lowest unexpired quote), or the fee
 * ratio (basis points) of the sell amount when that is more.
 */
export function requiredFee(sellAmount: bigint, minimalFee: bigint, feeRatioBps = 0): bigint {
  const proportional = (sellAmount * BigInt(feeRatioBps)) / 10_000n;
  return proportional > minimalFee ? proportional : minimalFee;
}

/**
 * Whether the order is held to the seed's minimal fee: today's protocol signs feeAmount 0 and takes the fee
 * in the price, with or without a quote (a limit order names none), so only a non-zero feeAmount is.
 */
export function paysSignedFee(order: Pick<OrderData, 'feeAmount'>): boolean {
  return order.feeAmount !== 0n;
}

/** InsufficientFee when the order's feeAmount is below requiredFee(...). */
export function checkFee(order: OrderData, minimalFee: bigint, feeRatioBps = 0): void {
  const required = requiredFee(order.sellAmount, minimalFee, feeRatioBps);
  if (order.feeAmount < required) throw orderbookErrors.insufficientFee(order.feeAmount, required);
}

/** What an owner's spendable amount of a token is the smaller of. */
export interface Funds {
  balance: bigint;
  /** To the vault relayer. */
  allowance: bigint;
}

/**
 * A refusal when `available` (min(balanceOf, allowance to the vault relayer) of the sell token) cannot fund
 * the order: a fill-or-kill order needs sellAmount + feeAmount, a partially fillable one any non-zero
 * amount. As in CoW's order book, it is InsufficientAllowance when the balance (`funds`, from the same
 * read) would fund it and only the allowance is short, else InsufficientBalance. Presign orders are not
 * checked, as in CoW's order book: the owner may fund them before the presignature transaction.
 */
export function checkBalance(
  order: OrderData & { signingScheme: SigningScheme },
  available: bigint,
  funds?: Funds,
): void {
  if (order.signingScheme === 'presign' || canFund(order, available)) return;
  const needed = neededToPlace(order);
  if (funds && funds.balance >= needed && funds.allowance < needed) throw orderbookErrors.insufficientAllowance(needed, funds.allowance);
  throw orderbookErrors.insufficientBalance(needed, available);
}

/** Whether `available` funds the order by checkBalance's rule (presign orders aside). */
export function canFund(order: OrderData, available: bigint): boolean {
  return available >= neededToPlace(order);
}

function neededToPlace(order: OrderData): bigint {
  return order.partiallyFillable ? 1n : order.sellAmount + order.feeAmount;
}

/**
 * The fill rule of the settlement contract: a sell order is fully executed when executedSellAmountBeforeFees
 * reaches sellAmount, a buy order when executedBuyAmount reaches buyAmount.
 */
export function isFullyExecuted(
  order: Pick<OrderData, 'kind' | 'sellAmount' | 'buyAmount'>,
  executed: { sellAmountBeforeFees: bigint; buyAmount: bigint },
): boolean {
  return order.kind === 'sell'
    ? executed.sellAmountBeforeFees >= order.sellAmount
    : executed.buyAmount >= order.buyAmount;
}

/** A UID from a path or query: lowercase, InvalidOrderUid unless 0x + 112 hex digits. */
export function parseOrderUid(uid: string): string {
  try {
    unpackOrderUid(uid);
  } catch {
    throw orderbookErrors.invalidOrderUid(`"${uid.slice(0, 120)}" is not an order UID (0x + 112 hex digits)`);
  }
  return uid.toLowerCase();
}
