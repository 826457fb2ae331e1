/**
 * What browsers are told, per part of the service:
 * - the gateway answers any origin, as public JSON-RPC endpoints (Infura) do: calls carry no cookies, so a
 *   dapp page may use {network_url} directly;
 * - the order book's /api answers any origin with CoW's order book policy (the methods of its API, the
 *   headers its clients send), so that a swap page on another site can use it as it uses CoW's;
 * - the operator routes send no CORS header at all: a page on another site can neither call them with a
 *   preflight nor read their answers.
 * Every answer but the gateway's also says: no framing, no referrer, no sniffing, and a Content-Security-
 * Policy (the explorer's page sets its own, which names its inline import map).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { presetHeader } from './io.js';

/** The policy of JSON answers: nothing to load, nothing may frame them. */
export const API_CSP = "default-src 'self'; frame-ancestors 'none'";

/** Headers of every answer but the gateway's. */
export function securityHeaders(res: ServerResponse): void {
  res.setHeader('content-security-policy', API_CSP);
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('x-content-type-options', 'nosniff');
}

/**
 * The gateway's policy: any origin. Gives true when the request was a CORS preflight, now answered.
 */
export function allowAnyOrigin(req: IncomingMessage, res: ServerResponse): boolean {
  // Preset rather than res.setHeader: keeps sendJson's writeHead on Node's fast path.
  presetHeader(res, 'access-control-allow-origin', '*');
  if (req.method !== 'OPTIONS') return false;
  res.writeHead(204, {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, POST, OPTIONS',
    'access-control-allow-headers': req.headers['access-control-request-headers'] ?? 'content-type',
    'access-control-max-age': '86400',
  });
  res.end();
  return true;
}

/** CoW's order book: these methods, these request headers (its own, and ours: X-Api-Key). */
const API_METHODS = 'GET, POST, DELETE, OPTIONS, PUT, PATCH, HEAD';
const API_HEADERS = 'origin, content-type, x-auth-token, x-appid, x-api-key, last-event-id, if-none-match';

/** The order book's policy (see above). Gives true when the request was a CORS preflight, now answered. */
export function apiCors(req: IncomingMessage, res: ServerResponse): boolean {
  res.setHeader('access-control-allow-origin', '*');
  // What a page on another origin may read besides the simple headers: the next page, revalidation, when to retry.
  res.setHeader('access-control-expose-headers', 'Link, ETag, Retry-After');
  if (req.method !== 'OPTIONS' || req.headers['access-control-request-method'] === undefined) return false;
  res.writeHead(200, {
    'access-control-allow-methods': API_METHODS,
    'access-control-allow-headers': API_HEADERS,
    'access-control-max-age': '3600',
    'content-length': '0',
  });
  res.end();
  return true;
}
