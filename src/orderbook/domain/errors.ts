/**
 * The order book's one error type, a value without HTTP: everything the order book refuses is an
 * OrderbookError with a `kind` (why it is refused) and the CoW Protocol order book's `{errorType, description}`.
 * The API layer maps kinds to statuses in one place (api/errors.ts), as CoW services map their domain error
 * enums in crates/orderbook/src/api. The errorTypes are CoW's where CoW has one (OrderPostError,
 * OrderCancellationError); `InvalidOrderData` (a present field with a malformed value) is ours, beside CoW's
 * `MissingOrderData`.
 */
import type { ErrorObject } from 'ajv';
import type { OrderbookErrorBody } from '../../generated/orderbook/error.js';
import { describeError } from '../../shared/schemas.js';

/**
 * - rejected: the request breaks a rule of the order book (a malformed field, a bad signature, a duplicate);
 * - notFound: it names an order, quote, price or route that does not exist;
 * - unauthorized: a cancellation signed by someone other than the order's owner;
 * - rateLimited: too many requests from this client;
 * - unavailable: a read that could not settle while the log kept moving (try again);
 * - internal: the order book's own failure (no detail goes to the client).
 */
export type OrderbookErrorKind = 'rejected' | 'notFound' | 'unauthorized' | 'rateLimited' | 'unavailable' | 'internal';

export class OrderbookError extends Error {
  constructor(
    readonly kind: OrderbookErrorKind,
    readonly errorType: string,
    readonly description: string,
  ) {
    super(`${errorType}: ${description}`);
    this.name = 'OrderbookError';
  }

  toBody(): OrderbookErrorBody {
    return { errorType: this.errorType, description: this.description };
  }
}

const badRequest = (errorType: string, description: string) => new OrderbookError('rejected', errorType, description);

export const orderbookErrors = {
  // The body or a path parameter does not have the documented shape.
  missingOrderData: (description: string) => badRequest('MissingOrderData', description),
  invalidOrderData: (description: string) => badRequest('InvalidOrderData', description),
  invalidOrderUid: (description: string) => badRequest('InvalidOrderUid', description),
  /** The first schema error of a body named `root`: MissingOrderData for a missing field, else InvalidOrderData. */
  fromSchema: (errors: ErrorObject[] | null | undefined, root: string) => {
    const first = errors?.[0];
    if (first?.keyword === 'required') return orderbookErrors.missingOrderData(describeError(errors, root));
    const notAnObject = first?.keyword === 'type' && first.instancePath === '';
    return badRequest('InvalidOrderData', notAnObject ? `${root} must be a JSON object` : describeError(errors, root));
  },

  // Order creation: the order's own rules.
  zeroAmount: () => badRequest('ZeroAmount', 'Buy or sell amount is zero.'),
  sameBuyAndSellToken: () => badRequest('SameBuyAndSellToken', 'Buy token is the same as the sell token.'),
  insufficientValidTo: (minValidTo: number) =>
    badRequest('InsufficientValidTo', `validTo is not far enough in the future: it must be at least ${minValidTo}`),
  excessiveValidTo: (maxValidTo: number, orderClass: 'market' | 'limit') =>
    badRequest('ExcessiveValidTo', `validTo is too far into the future: a ${orderClass} order may be valid until ${maxValidTo} at most`),
  sellAmountOverflow: () =>
    badRequest('SellAmountOverflow', 'sellAmount + feeAmount exceeds 2^256-1: the settlement could not transfer it'),

  // Order creation: who signed it.
  invalidSignature: (detail: string) => badRequest('InvalidSignature', `invalid signature: ${detail}`),
  invalidEip1271Signature: (digest: string) =>
    badRequest('InvalidEip1271Signature', `isValidSignature of the owner contract rejected the order digest ${digest}`),
  missingFrom: (scheme: string) =>
    badRequest('MissingFrom', `a ${scheme} order needs "from": the owner cannot be recovered from its signature`),
  wrongOwner: (from: string, recovered: string) =>
    badRequest('WrongOwner', `"from" is ${from} but the signature is by ${recovered}`),

  // Order creation: the book and the chain.
  duplicatedOrder: () => badRequest('DuplicatedOrder', 'order already exists'),
  insufficientFee: (feeAmount: bigint, required: bigint) =>
    badRequest('InsufficientFee', `feeAmount ${feeAmount} is below the minimal fee ${required} of the sell token`),
  insufficientBalance: (needed: bigint, available: bigint) =>
    badRequest(
      'InsufficientBalance',
      `the owner has ${available} of the sell token available (balance and allowance to the vault relayer), the order needs ${needed}`,
    ),

  // Cancellation (CoW's OrderCancellationError).
  orderNotFound: () => new OrderbookError('notFound', 'OrderNotFound', 'order not found'),
  cancellationWrongOwner: () =>
    new OrderbookError('unauthorized', 'WrongOwner', "the cancellation is signed by someone other than the order's owner"),
  alreadyCancelled: () => badRequest('AlreadyCancelled', 'order is already cancelled'),
  orderFullyExecuted: () => badRequest('OrderFullyExecuted', 'order is fully executed'),
  orderExpired: () => badRequest('OrderExpired', 'order is expired'),
  onChainOrder: () => badRequest('OnChainOrder', 'eip1271 and presign orders must be cancelled on-chain'),

  // Today's API (cowprotocol/services' errorTypes).
  invalidAppData: (detail: string) => badRequest('InvalidAppData', detail),
  appDataInvalid: (detail: string) => badRequest('AppDataInvalid', detail),
  appDataHashMismatch: (expected: string, actual: string) =>
    badRequest('AppDataHashMismatch', `appDataHash ${expected} is not the keccak256 ${actual} of the app data`),
  quoteNotFound: (id: number) => badRequest('QuoteNotFound', `quote ${id} not found`),
  invalidQuote: (detail: string) => badRequest('InvalidQuote', detail),
  noLiquidity: (token: string) => new OrderbookError('notFound', 'NoLiquidity', `no price for token ${token}`),
  sellAmountDoesNotCoverFee: (fee: bigint) =>
    badRequest('SellAmountDoesNotCoverFee', `the sell amount does not cover the fee of ${fee}`),
  invalidLimit: (detail: string) => badRequest('InvalidLimit', detail),
  invalidTradeFilter: (detail: string) => badRequest('InvalidTradeFilter', detail),
  invalidAddress: (value: string) =>
    badRequest('InvalidAddress', `"${value.slice(0, 60)}" is not an address (0x + 40 hex digits)`),
  invalidTxHash: (value: string) =>
    badRequest('InvalidTxHash', `"${value.slice(0, 80)}" is not a transaction hash (0x + 64 hex digits)`),
  invalidAppDataHash: (value: string) =>
    badRequest('InvalidAppDataHash', `"${value.slice(0, 80)}" is not an app data hash (0x + 64 hex digits)`),

  // Generic answers.
  notFound: (what: string) => new OrderbookError('notFound', 'NotFound', `${what} not found`),
  tooManyRequests: (detail: string) => new OrderbookError('rateLimited', 'TooManyRequests', detail),
  /** A read that could not settle while the log kept moving: the client may try again. */
  unsettled: (detail: string) => new OrderbookError('unavailable', 'ServiceUnavailable', detail),
  internal: () => new OrderbookError('internal', 'InternalServerError', 'internal server error'),
};
