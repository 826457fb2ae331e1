/**
 * What each order book request costs against the caller's rate limits (API_COST_QUOTE, API_COST_ORDER,
 * API_COST_LIST; every other route costs 1), and which routes are the operator's. Pure rules on the
 * method and path, read the way the router reads a path (without case, trailing slash or percent-encoding),
 * so that no spelling of a route escapes its cost or its credential.
 */
import type { AccessConfig } from '../../generated/config.js';

export type ApiCosts = AccessConfig['apiCosts'];
export type CostClass = keyof ApiCosts;

/** The path as the router matches it. */
export function routePath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A malformed escape matches no route; it is read as it came.
  }
  decoded = decoded.toLowerCase();
  while (decoded.length > 1 && decoded.endsWith('/')) decoded = decoded.slice(0, -1);
  return decoded;
}

const SEGMENT = '[^/]+';
const CLASSES: [method: string, pattern: RegExp, cost: CostClass][] = [
  ['POST', /^\/api\/v1\/quote$/, 'quote'],
  ['GET', new RegExp(`^/api/v1/tokens/${SEGMENT}/fee$`), 'quote'],
  ['GET', new RegExp(`^/api/v1/token/${SEGMENT}/native_price$`), 'quote'],
  ['POST', /^\/api\/v1\/orders$/, 'order'],
  ['DELETE', /^\/api\/v1\/orders$/, 'order'],
  ['DELETE', new RegExp(`^/api/v1/orders/${SEGMENT}$`), 'order'],
  ['PUT', new RegExp(`^/api/v1/app_data(/${SEGMENT})?$`), 'order'],
  ['GET', /^\/api\/v1\/orders$/, 'list'],
  ['POST', /^\/api\/v1\/orders\/by_uids$/, 'list'],
  ['GET', new RegExp(`^/api/v1/account/${SEGMENT}/orders$`), 'list'],
  ['GET', new RegExp(`^/api/v1/transactions/${SEGMENT}/orders$`), 'list'],
  ['GET', new RegExp(`^/api/v1/users/${SEGMENT}/total_surplus$`), 'list'],
  ['GET', /^\/api\/v[12]\/trades$/, 'list'],
  ['GET', /^\/api\/v1\/events$/, 'list'],
  ['GET', /^\/api\/v1\/projections$/, 'list'],
];

/** The class of a request's route (quote, order, list), or null for every other route. */
export function routeClass(method: string, path: string): CostClass | null {
  const m = method === 'HEAD' ? 'GET' : method;
  const p = routePath(path);
  for (const [method, pattern, cost] of CLASSES) if (m === method && pattern.test(p)) return cost;
  return null;
}

/** The cost of a request (1 unless its route is one of the classes above). */
export function routeCost(costs: ApiCosts, method: string, path: string): number {
  const cost = routeClass(method, path);
  return cost === null ? 1 : costs[cost];
}

/** The order book's operator routes: a full replay of the log on demand. */
export function isOperatorRoute(path: string): boolean {
  return routePath(path) === '/api/v1/projections/replay';
}
