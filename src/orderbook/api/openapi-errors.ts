/**
 * The error answers of the order book's OpenAPI document (openapi.ts), made from the error catalogue
 * (domain/errors.ts): an operation names the catalogue entries it can give, and gets one answer per status
 * whose schema is the Error with those errorTypes, described by the catalogue's messages.
 */
import { ORDERBOOK_ERRORS, errorTypeOf, statusOfCode, type OrderbookErrorCode } from '../domain/errors.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ content: { 'application/json': { schema } } });

/** Every operation may also give these: the order book is starting or down, or failed itself. */
const EVERY_OPERATION: OrderbookErrorCode[] = ['ServiceUnavailable', 'InternalServerError'];
/** A JSON body that is not JSON, is nested too deep, is not sent as application/json, or is too large. */
export const BODY: OrderbookErrorCode[] = ['InvalidOrderData', 'PayloadTooLarge'];
/** A query parameter the operation does not take, or one given twice. */
export const QUERY: OrderbookErrorCode[] = ['InvalidOrderData'];
/**
 * What any path may be answered, whatever its operations: a method it does not take, a route none has, the
 * order book starting or down, what the listeners and the access layer refuse (docs/operations.md, "Access").
 */
export const ANY_PATH: OrderbookErrorCode[] = [
  'MethodNotAllowed',
  'NotFound',
  'ServiceUnavailable',
  'Unauthorized',
  'MisdirectedRequest',
  'TooManyRequests',
  'MalformedRequest',
  'RequestTimeout',
  'HeadersTooLarge',
];

/** The answer of some catalogue entries of one status: an Error whose errorType is one of theirs. */
export function errorAnswer(codes: readonly OrderbookErrorCode[]): object {
  const errorTypes = [...new Set(codes.map(errorTypeOf))];
  return {
    description: codes.map((code) => `${errorTypeOf(code)}: ${ORDERBOOK_ERRORS[code].message}`).join('; '),
    ...json({ allOf: [ref('Error'), { properties: { errorType: { enum: errorTypes } } }] }),
  };
}

/** An operation's error answers by status: the entries it names, and those every operation may give. */
export function refusals(...codes: OrderbookErrorCode[]): Record<number, object> {
  const byStatus = new Map<number, OrderbookErrorCode[]>();
  for (const code of new Set([...codes, ...EVERY_OPERATION])) {
    const status = statusOfCode(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries([...byStatus].sort(([a], [b]) => a - b).map(([status, list]) => [status, errorAnswer(list)]));
}
