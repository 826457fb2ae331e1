/**
 * App data of today's CoW API: an order signs a 32-byte `appData` that is the keccak256 of a JSON document
 * (the "full app data"). Clients send either the hash or the document itself (then optionally with
 * `appDataHash`), and may register documents beforehand. Pure: parsing, hashing, and the order body's
 * normalisation to the seed's OrderCreation (hash form, only the fields it knows), so that the seed's
 * strict parser (order.ts) stays as it is and fields the reference ignores are ignored here too.
 */
import { keccak256, toUtf8Bytes } from 'ethers';
import { inlinedSchema } from '../../shared/schemas.js';
import { orderbookErrors, type OrderbookError } from './errors.js';

/** The app data the seed's clients sign: it names no document. */
export const ZERO_APP_DATA = '0x' + '00'.repeat(32);

/** The largest full app data document, in UTF-8 bytes (the spec's limit). */
export const MAX_APP_DATA_BYTES = 1000;

const HASH = /^0x[0-9a-fA-F]{64}$/;

export function isAppDataHash(value: unknown): value is string {
  return typeof value === 'string' && HASH.test(value);
}

export function appDataHashOf(fullAppData: string): string {
  return keccak256(toUtf8Bytes(fullAppData));
}

/**
 * A full app data document checked: at most MAX_APP_DATA_BYTES and a JSON object. `refuse` names the error
 * (PUT /app_data answers AppDataInvalid, order creation InvalidAppData, as the reference does).
 */
export function checkFullAppData(text: string, refuse: (detail: string) => OrderbookError): string {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_APP_DATA_BYTES) throw refuse(`the app data is ${bytes} bytes, at most ${MAX_APP_DATA_BYTES} are accepted`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw refuse('the app data is not a JSON document');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw refuse('the app data must be a JSON object');
  return text;
}

export interface ResolvedAppData {
  /** The 32-byte app data the order or quote signs (lowercase). */
  hash: string;
  /** The document, when the client sent it. */
  full: string | null;
}

/**
 * `appData` as the hash or the document, checked against `appDataHash` when given (AppDataHashMismatch);
 * null when `appData` is neither (the caller's schema then reports it).
 */
export function resolveAppData(appData: unknown, appDataHash: unknown): ResolvedAppData | null {
  if (appDataHash !== undefined && !isAppDataHash(appDataHash)) {
    throw orderbookErrors.invalidOrderData('appDataHash must be 32 bytes (0x + 64 hex digits)');
  }
  let resolved: ResolvedAppData;
  if (isAppDataHash(appData)) resolved = { hash: appData.toLowerCase(), full: null };
  else if (typeof appData === 'string' && !appData.startsWith('0x')) {
    const full = checkFullAppData(appData, orderbookErrors.invalidAppData);
    resolved = { hash: appDataHashOf(full), full };
  } else return null;
  if (appDataHash !== undefined && appDataHash.toLowerCase() !== resolved.hash) {
    throw orderbookErrors.appDataHashMismatch(appDataHash.toLowerCase(), resolved.hash);
  }
  return resolved;
}

let orderCreationFields: Set<string> | undefined;

export interface NormalizedOrderBody {
  /** The seed's OrderCreation: appData as the hash, no field it does not know. */
  body: unknown;
  fullAppData: string | null;
  quoteId: number | null;
}

/**
 * Today's OrderCreation to the seed's: resolves appData (document or hash, appDataHash checked) and drops
 * the fields the seed's schema does not know (appDataHash, fullBalanceCheck, anything else), as the
 * reference ignores unknown fields. A body that is not an object is passed on for the schema to refuse.
 */
export function normalizeOrderBody(body: unknown): NormalizedOrderBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { body, fullAppData: null, quoteId: null };
  orderCreationFields ??= new Set(Object.keys(inlinedSchema('orderbook/order-creation.schema.json').properties as object));
  const input = body as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) if (orderCreationFields.has(key)) out[key] = value;
  const resolved = resolveAppData(input.appData, input.appDataHash);
  if (resolved) out.appData = resolved.hash;
  const quoteId = typeof input.quoteId === 'number' && Number.isSafeInteger(input.quoteId) ? input.quoteId : null;
  return { body: out, fullAppData: resolved?.full ?? null, quoteId };
}
