/**
 * The order book's one error type and its catalogue. Everything the order book refuses is an OrderbookError
 * naming an entry of ORDERBOOK_ERRORS, whose `errorType`, `description` and HTTP status make CoW Protocol's
 * `{errorType, description}` answer. The status is recorded with the errorType because to a client it is
 * part of what the errorType means (CoW's clients branch on both); turning an error into an HTTP answer
 * (the body, logging what is not an OrderbookError) is api/errors.ts's job alone, and no other module of
 * the order book writes a status.
 *
 * The errorTypes are CoW's where CoW has one (OrderPostError, OrderCancellationError, PriceEstimationError
 * and the app data errors of crates/orderbook/src/api); `reference` is the status CoW's order book answers
 * for it (null: CoW has no such errorType), so that every divergence is visible here and listed in
 * docs/orderbook-api.md ("Divergences from the reference"), which a test holds to this catalogue.
 */
import type { ErrorObject } from 'ajv';
import type { OrderbookErrorBody } from '../../generated/orderbook/error.js';
import { describeError } from '../../shared/schemas.js';

export interface CatalogueEntry {
  /** The HTTP status the order book answers with. */
  status: number;
  /** When it is given, in a line (the OpenAPI document and the docs show it). */
  message: string;
  /** The errorType on the wire, when it is not the entry's name (one errorType with two statuses). */
  errorType?: string;
  /** The status of CoW's order book for this errorType; null when CoW has none. */
  reference: number | null;
}

/**
 * Every refusal of the order book. A client's mistake is never 5xx: 500 is the order book's own fault only,
 * 503 a moment the client may retry.
 */
export const ORDERBOOK_ERRORS = {
  // A body, path or query that does not have the documented shape.
  MissingOrderData: { status: 400, message: 'a required field of the body is missing', reference: null },
  InvalidOrderData: { status: 400, message: 'a field, parameter or body has a malformed value, or is not taken here', reference: null },
  InvalidOrderUid: { status: 400, message: 'the order UID is not 56 bytes of hex', reference: null },
  InvalidAddress: { status: 400, message: 'a path parameter is not an address', reference: null },
  InvalidTxHash: { status: 400, message: 'the transaction hash is not 32 bytes of hex', reference: null },
  InvalidAppDataHash: { status: 400, message: 'the app data hash is not 32 bytes of hex', reference: null },
  InvalidLimit: { status: 400, message: 'limit or offset out of bounds', reference: 400 },
  InvalidTradeFilter: { status: 400, message: 'not exactly one of owner and orderUid', reference: 400 },

  // Order creation: the order's own rules.
  ZeroAmount: { status: 400, message: 'the buy or sell amount is zero', reference: 400 },
  SameBuyAndSellToken: { status: 400, message: 'the buy token is the sell token', reference: 400 },
  InsufficientValidTo: { status: 400, message: 'validTo is not far enough in the future', reference: 400 },
  ExcessiveValidTo: { status: 400, message: 'validTo is further in the future than the order class allows', reference: 400 },
  SellAmountOverflow: { status: 400, message: 'sellAmount + feeAmount exceeds 2^256-1', reference: 500 },

  // Order creation: who signed it.
  InvalidSignature: { status: 400, message: 'the signature is malformed or does not recover', reference: 400 },
  InvalidEip1271Signature: { status: 400, message: "the owner contract's isValidSignature rejects the order", reference: 400 },
  MissingFrom: { status: 400, message: 'an eip1271 or presign order without "from"', reference: 400 },
  WrongOwner: { status: 400, message: '"from" is not the signer of the order', reference: 400 },

  // Order creation: the book and the chain.
  DuplicatedOrder: { status: 400, message: 'the order exists already', reference: 400 },
  InsufficientFee: { status: 400, message: 'a non-zero feeAmount below the minimal fee of the sell token', reference: null },
  InsufficientBalance: { status: 400, message: "the owner's balance of the sell token cannot fund the order", reference: 400 },
  InsufficientAllowance: { status: 400, message: "the owner's allowance to the vault relayer cannot fund the order", reference: 400 },
  InvalidAppData: { status: 400, message: "the order's or quote's app data is not a valid document", reference: 400 },
  AppDataHashMismatch: { status: 400, message: 'appDataHash is not the keccak256 of the app data', reference: 400 },
  QuoteNotFound: { status: 400, message: 'quoteId names no live quote', reference: 400 },
  InvalidQuote: { status: 400, message: 'the quote named is for another pair or kind', reference: 400 },

  // Cancellation.
  OrderNotFound: { status: 404, message: 'no order has that UID', reference: 404 },
  CancellationWrongOwner: {
    status: 401,
    errorType: 'WrongOwner',
    message: "the cancellation is signed by someone other than the order's owner",
    reference: 401,
  },
  AlreadyCancelled: { status: 400, message: 'the order is cancelled already', reference: 400 },
  OrderFullyExecuted: { status: 400, message: 'the order is fully executed', reference: 400 },
  OrderExpired: { status: 400, message: 'the order is expired', reference: 400 },
  OnChainOrder: { status: 400, message: 'eip1271 and presign orders are cancelled on-chain', reference: 400 },

  // App data and quotes.
  AppDataInvalid: { status: 400, message: 'the app data document is not valid', reference: 400 },
  NoLiquidity: { status: 404, message: 'nothing prices a token', reference: 404 },
  SellAmountDoesNotCoverFee: { status: 400, message: 'the sell amount does not cover the fee', reference: 400 },

  // Generic answers.
  NotFound: { status: 404, message: 'the route, document or price does not exist, or the order book is off here', reference: 404 },
  MethodNotAllowed: { status: 405, message: 'the path does not take this method (Allow names those it takes)', reference: null },
  PayloadTooLarge: { status: 413, message: 'the body exceeds its limit', reference: null },
  TooManyRequests: { status: 429, message: "the client's rate limit is spent, or a replay ran too recently", reference: null },
  InternalServerError: { status: 500, message: "the order book's own fault (no detail; logged)", reference: 500 },
  ServiceUnavailable: { status: 503, message: 'the order book is starting or down, busy with listings or quotes, or a read did not settle: try again', reference: null },

  // What the service's listeners and access layer refuse before the order book sees the request, in its shape.
  Unauthorized: { status: 401, message: "an unknown API key, or an operator route without the operator's credential", reference: null },
  MisdirectedRequest: { status: 421, message: 'a Host the service does not answer for (ALLOWED_HOSTS)', reference: null },
  MalformedRequest: { status: 400, message: 'the HTTP request cannot be read', reference: null },
  RequestTimeout: { status: 408, message: 'the request was not received in time', reference: null },
  HeadersTooLarge: { status: 431, message: 'the request headers are too large', reference: null },
} as const satisfies Record<string, CatalogueEntry>;

/** The name of a catalogue entry. */
export type OrderbookErrorCode = keyof typeof ORDERBOOK_ERRORS;

/** An errorType on the wire: the entry's name, or the errorType it gives. */
export type OrderbookErrorType = {
  [C in OrderbookErrorCode]: (typeof ORDERBOOK_ERRORS)[C] extends { errorType: infer T extends string } ? T : C;
}[OrderbookErrorCode];

export const errorTypeOf = (code: OrderbookErrorCode): OrderbookErrorType =>
  ((ORDERBOOK_ERRORS[code] as CatalogueEntry).errorType ?? code) as OrderbookErrorType;

export const statusOfCode = (code: OrderbookErrorCode): number => ORDERBOOK_ERRORS[code].status;

export class OrderbookError extends Error {
  readonly errorType: OrderbookErrorType;

  constructor(
    readonly code: OrderbookErrorCode,
    readonly description: string,
  ) {
    const errorType = errorTypeOf(code);
    super(`${errorType}: ${description}`);
    this.name = 'OrderbookError';
    this.errorType = errorType;
  }

  toBody(): OrderbookErrorBody {
    return { errorType: this.errorType, description: this.description };
  }
}

const refuse = (code: OrderbookErrorCode, description: string) => new OrderbookError(code, description);

/** The constructors: every refusal is made here, from its catalogue entry. */
export const orderbookErrors = {
  // The body or a path parameter does not have the documented shape.
  missingOrderData: (description: string) => refuse('MissingOrderData', description),
  invalidOrderData: (description: string) => refuse('InvalidOrderData', description),
  invalidOrderUid: (description: string) => refuse('InvalidOrderUid', description),
  /** The first schema error of a body named `root`: MissingOrderData for a missing field, else InvalidOrderData. */
  fromSchema: (errors: ErrorObject[] | null | undefined, root: string) => {
    const first = errors?.[0];
    if (first?.keyword === 'required') return orderbookErrors.missingOrderData(describeError(errors, root));
    const notAnObject = first?.keyword === 'type' && first.instancePath === '';
    return refuse('InvalidOrderData', notAnObject ? `${root} must be a JSON object` : describeError(errors, root));
  },

  // Order creation: the order's own rules.
  zeroAmount: () => refuse('ZeroAmount', 'Buy or sell amount is zero.'),
  sameBuyAndSellToken: () => refuse('SameBuyAndSellToken', 'Buy token is the same as the sell token.'),
  insufficientValidTo: (minValidTo: number) =>
    refuse('InsufficientValidTo', `validTo is not far enough in the future: it must be at least ${minValidTo}`),
  excessiveValidTo: (maxValidTo: number, orderClass: 'market' | 'limit') =>
    refuse('ExcessiveValidTo', `validTo is too far into the future: a ${orderClass} order may be valid until ${maxValidTo} at most`),
  sellAmountOverflow: () =>
    refuse('SellAmountOverflow', 'sellAmount + feeAmount exceeds 2^256-1: the settlement could not transfer it'),

  // Order creation: who signed it.
  invalidSignature: (detail: string) => refuse('InvalidSignature', `invalid signature: ${detail}`),
  invalidEip1271Signature: (digest: string) =>
    refuse('InvalidEip1271Signature', `isValidSignature of the owner contract rejected the order digest ${digest}`),
  missingFrom: (scheme: string) =>
    refuse('MissingFrom', `a ${scheme} order needs "from": the owner cannot be recovered from its signature`),
  wrongOwner: (from: string, recovered: string) => refuse('WrongOwner', `"from" is ${from} but the signature is by ${recovered}`),

  // Order creation: the book and the chain.
  duplicatedOrder: () => refuse('DuplicatedOrder', 'order already exists'),
  insufficientFee: (feeAmount: bigint, required: bigint) =>
    refuse('InsufficientFee', `feeAmount ${feeAmount} is below the minimal fee ${required} of the sell token`),
  insufficientBalance: (needed: bigint, available: bigint) =>
    refuse(
      'InsufficientBalance',
      `the owner has ${available} of the sell token available (balance and allowance to the vault relayer), the order needs ${needed}`,
    ),
  insufficientAllowance: (needed: bigint, allowance: bigint) =>
    refuse(
      'InsufficientAllowance',
      `the owner allows the vault relayer ${allowance} of the sell token, the order needs ${needed}: approve the vault relayer`,
    ),

  // Cancellation (CoW's OrderCancellationError).
  orderNotFound: () => refuse('OrderNotFound', 'order not found'),
  cancellationWrongOwner: () => refuse('CancellationWrongOwner', "the cancellation is signed by someone other than the order's owner"),
  alreadyCancelled: () => refuse('AlreadyCancelled', 'order is already cancelled'),
  orderFullyExecuted: () => refuse('OrderFullyExecuted', 'order is fully executed'),
  orderExpired: () => refuse('OrderExpired', 'order is expired'),
  onChainOrder: () => refuse('OnChainOrder', 'eip1271 and presign orders must be cancelled on-chain'),

  // Today's API (cowprotocol/services' errorTypes).
  invalidAppData: (detail: string) => refuse('InvalidAppData', detail),
  appDataInvalid: (detail: string) => refuse('AppDataInvalid', detail),
  appDataHashMismatch: (expected: string, actual: string) =>
    refuse('AppDataHashMismatch', `appDataHash ${expected} is not the keccak256 ${actual} of the app data`),
  quoteNotFound: (id: number) => refuse('QuoteNotFound', `quote ${id} not found`),
  invalidQuote: (detail: string) => refuse('InvalidQuote', detail),
  noLiquidity: (token: string) => refuse('NoLiquidity', `no price for token ${token}`),
  sellAmountDoesNotCoverFee: (fee: bigint) => refuse('SellAmountDoesNotCoverFee', `the sell amount does not cover the fee of ${fee}`),
  invalidLimit: (detail: string) => refuse('InvalidLimit', detail),
  invalidTradeFilter: (detail: string) => refuse('InvalidTradeFilter', detail),
  invalidAddress: (value: string) => refuse('InvalidAddress', `"${value.slice(0, 60)}" is not an address (0x + 40 hex digits)`),
  invalidTxHash: (value: string) => refuse('InvalidTxHash', `"${value.slice(0, 80)}" is not a transaction hash (0x + 64 hex digits)`),
  invalidAppDataHash: (value: string) =>
    refuse('InvalidAppDataHash', `"${value.slice(0, 80)}" is not an app data hash (0x + 64 hex digits)`),

  // Generic answers.
  notFound: (what: string) => refuse('NotFound', `${what} not found`),
  /** The order book does not run on this instance (ORDERBOOK=off). */
  off: () => refuse('NotFound', 'the order book is off on this instance (ORDERBOOK=off)'),
  methodNotAllowed: (method: string, allow: string) => refuse('MethodNotAllowed', `${method} is not allowed here; allowed: ${allow}`),
  payloadTooLarge: (limit: number) => refuse('PayloadTooLarge', `request body exceeds ${limit} bytes`),
  tooManyRequests: (detail: string) => refuse('TooManyRequests', detail),
  /** The order book is starting or down (why, in a line): the client may try again. */
  unavailable: (description: string) => refuse('ServiceUnavailable', description),
  /** A read that could not settle while the log kept moving: the client may try again. */
  unsettled: (detail: string) => refuse('ServiceUnavailable', detail),
  /** Too much of one kind of work is running and waiting already, all clients together: the client may try again. */
  busy: (detail: string) => refuse('ServiceUnavailable', detail),
  internal: () => refuse('InternalServerError', 'internal server error'),
};
