/**
 * The access layer's configuration slice: its defaults and the environment variables that set them
 * (ALLOWED_HOSTS, OPERATOR_TOKEN, TRUST_PROXY, API_COST_*, KEY_FAILURES_PER_MINUTE). The one loader
 * (src/wiring/config.ts) composes the slices, merges the config file and validates the result.
 */
import type { AccessConfig } from '../generated/config.js';
import { ConfigError, integer, list, strip, type Env } from '../shared/env.js';
import { isAddressOrRange } from './addresses.js';

export function accessDefaults(): AccessConfig {
  return {
    trustedProxies: [],
    proxyHops: 0,
    apiCosts: { quote: 5, order: 5, list: 5 },
    keyFailuresPerMinute: 20,
  };
}

/** The loopback ranges: the proxies TRUST_PROXY=<hops> (the older form) trusts. */
const LOOPBACK_PROXIES = ['127.0.0.0/8', '::1'];

/**
 * TRUST_PROXY: the proxies' addresses or CIDR ranges (127.0.0.1,10.0.0.0/8), or off. The older forms
 * <hops> and on (one hop) are kept, restricted to proxies on loopback: a peer elsewhere is never trusted.
 */
function trustProxy(env: Env): { trustedProxies: string[]; proxyHops: number } | undefined {
  const raw = env.TRUST_PROXY?.trim().toLowerCase();
  if (raw === undefined || raw === '') return undefined;
  if (/^\d+$/.test(raw)) return Number(raw) === 0 ? { trustedProxies: [], proxyHops: 0 } : { trustedProxies: LOOPBACK_PROXIES, proxyHops: Number(raw) };
  if (raw === 'on' || raw === 'true') return { trustedProxies: LOOPBACK_PROXIES, proxyHops: 1 };
  if (raw === 'off' || raw === 'false') return { trustedProxies: [], proxyHops: 0 };
  return { trustedProxies: list(raw) ?? [], proxyHops: 0 };
}

/** The access settings the environment sets (unset ones are left out, to keep the file's or the default). */
export function accessFromEnv(env: Env): Record<string, unknown> {
  return strip({
    allowedHosts: list(env.ALLOWED_HOSTS),
    operatorToken: env.OPERATOR_TOKEN || undefined,
    ...trustProxy(env),
    apiCosts: strip({
      quote: integer(env, 'API_COST_QUOTE'),
      order: integer(env, 'API_COST_ORDER'),
      list: integer(env, 'API_COST_LIST'),
    }),
    keyFailuresPerMinute: integer(env, 'KEY_FAILURES_PER_MINUTE'),
  });
}

/** What the schema cannot say: each trusted proxy is an address or a CIDR range. */
export function checkAccessConfig(access: AccessConfig): void {
  for (const proxy of access.trustedProxies) {
    if (!isAddressOrRange(proxy)) throw new ConfigError(`TRUST_PROXY entry "${proxy}" is not an IP address or CIDR range`);
  }
}
