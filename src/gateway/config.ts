/**
 * The gateway's configuration slice: the networks it serves and their upstreams, its limits, cache, access
 * and health settings, their defaults and the environment variables that set them. The one loader
 * (src/wiring/config.ts) composes the slices, merges the config file and validates the result.
 */
import { readFileSync } from 'node:fs';
import type { ApiKeyConfig, GatewayConfig, NetworkConfig, UpstreamConfig } from '../generated/config.js';
import { ConfigError, boolean, decimal, integer, list, strip, type Env } from '../shared/env.js';
import { DEFAULT_RELAYED_METHODS } from './methods.js';

/** Chain ids of the networks a name alone is enough for. */
export const KNOWN_CHAIN_IDS: Readonly<Record<string, number>> = {
  mainnet: 1,
  ropsten: 3,
  rinkeby: 4,
  goerli: 5,
  kovan: 42,
  sepolia: 11155111,
  holesky: 17000,
};

export const DEFAULT_NETWORKS = ['mainnet', 'ropsten', 'kovan', 'rinkeby'];

export function networkDefaults(): NetworkConfig[] {
  return DEFAULT_NETWORKS.map((name) => ({ name, chainId: KNOWN_CHAIN_IDS[name], upstreams: [] }));
}

export function gatewayDefaults(): GatewayConfig {
  return {
    relayedMethods: [...DEFAULT_RELAYED_METHODS],
    upstreamTimeoutMs: 10_000,
    upstreamBatchCalls: 20,
    maxBodyBytes: 5 * 1024 * 1024,
    maxBatchSize: 100,
    maxLogsBlockRange: 10_000,
    maxSubscriptionsPerConnection: 32,
    headPollIntervalMs: 1_000,
    getLogsSplitBlocks: 0,
    wsPingIntervalMs: 30_000,
    health: {
      checkIntervalMs: 2_000,
      maxLagBlocks: 5,
      maxErrorRate: 0.5,
      errorWindowMs: 30_000,
      minSamples: 10,
      retryBehindErrors: true,
    },
    hedge: { quantile: 0, max: 1, minDelayMs: 100, maxDelayMs: 2_000 },
    cache: {
      maxBytes: 64 * 1024 * 1024,
      reorgDepth: 64,
      redis: true,
      redisTtlSeconds: 24 * 3600,
      coalesce: true,
    },
    apiKeys: [],
    rateLimit: { perIp: 0, perKey: 0, windowSeconds: 1 },
    wsMaxConnections: 5_000,
    wsMaxPerClient: 16,
    wsMaxBufferedBytes: 4 * 1024 * 1024,
    wsStallMs: 30_000,
    maxUpstreamAnswerBytes: 32 * 1024 * 1024,
    upstreamBusyBackoffMs: 2_000,
  };
}

/** NETWORKS, and per network CHAIN_ID_<NAME>, UPSTREAM_<NAME> and PORT_<NAME>, over the config file's list. */
export function networksFromEnv(env: Env, fromFile: NetworkConfig[]): NetworkConfig[] {
  const names = list(env.NETWORKS) ?? fromFile.map((n) => n.name);
  return names.map((name) => {
    const known = fromFile.find((n) => n.name === name);
    const key = name.toUpperCase().replace(/-/g, '_');
    const chainId = integer(env, `CHAIN_ID_${key}`) ?? known?.chainId ?? KNOWN_CHAIN_IDS[name];
    if (chainId === undefined) {
      throw new ConfigError(`network "${name}" has no known chain id: set CHAIN_ID_${key}`);
    }
    const urls = list(env[`UPSTREAM_${key}`]);
    // The environment names the upstreams; weight and role of a URL the config file also lists are kept.
    const upstreams: UpstreamConfig[] = urls
      ? urls.map((url) => known?.upstreams.find((u) => u.url === url) ?? { url })
      : (known?.upstreams ?? []);
    const port = integer(env, `PORT_${key}`) ?? known?.port;
    return { name, chainId, upstreams, ...(port === undefined ? {} : { port }) };
  });
}

/**
 * API_KEYS=key1,key2 (each with the default per-key limit) and API_KEYS_FILE, a JSON array of
 * {"key", "label"?, "rateLimit"?}; together they replace the config file's list.
 */
function apiKeys(env: Env): ApiKeyConfig[] | undefined {
  const fromList = list(env.API_KEYS)?.map((key) => ({ key }));
  let fromFile: ApiKeyConfig[] | undefined;
  if (env.API_KEYS_FILE) {
    try {
      fromFile = JSON.parse(readFileSync(env.API_KEYS_FILE, 'utf8'));
    } catch (err) {
      throw new ConfigError(`API_KEYS_FILE ${env.API_KEYS_FILE}: ${(err as Error).message}`);
    }
    if (!Array.isArray(fromFile)) throw new ConfigError(`API_KEYS_FILE ${env.API_KEYS_FILE} must hold a JSON array`);
  }
  if (!fromList && !fromFile) return undefined;
  return [...(fromList ?? []), ...(fromFile ?? [])];
}

/** The gateway's settings the environment sets (unset ones are left out, to keep the file's or the default). */
export function gatewayFromEnv(env: Env): Record<string, unknown> {
  return strip({
    relayedMethods: list(env.RELAYED_METHODS),
    upstreamTimeoutMs: integer(env, 'UPSTREAM_TIMEOUT_MS'),
    upstreamBatchCalls: integer(env, 'UPSTREAM_BATCH_CALLS'),
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES'),
    maxBatchSize: integer(env, 'MAX_BATCH_SIZE'),
    maxLogsBlockRange: integer(env, 'MAX_LOGS_BLOCK_RANGE'),
    maxSubscriptionsPerConnection: integer(env, 'MAX_SUBSCRIPTIONS_PER_CONNECTION'),
    headPollIntervalMs: integer(env, 'HEAD_POLL_INTERVAL_MS'),
    getLogsSplitBlocks: integer(env, 'GETLOGS_SPLIT_BLOCKS'),
    wsPingIntervalMs: integer(env, 'WS_PING_INTERVAL_MS'),
    health: strip({
      checkIntervalMs: integer(env, 'HEALTH_CHECK_INTERVAL_MS'),
      maxLagBlocks: integer(env, 'MAX_UPSTREAM_LAG_BLOCKS'),
      maxErrorRate: decimal(env, 'UPSTREAM_MAX_ERROR_RATE'),
      errorWindowMs: integer(env, 'UPSTREAM_ERROR_WINDOW_MS'),
      minSamples: integer(env, 'UPSTREAM_ERROR_MIN_SAMPLES'),
      retryBehindErrors: boolean(env, 'RETRY_BEHIND_ERRORS'),
    }),
    hedge: strip({
      quantile: decimal(env, 'HEDGE_QUANTILE'),
      max: integer(env, 'HEDGE_MAX'),
      minDelayMs: integer(env, 'HEDGE_MIN_DELAY_MS'),
      maxDelayMs: integer(env, 'HEDGE_MAX_DELAY_MS'),
    }),
    cache: strip({
      maxBytes: integer(env, 'CACHE_MAX_BYTES'),
      reorgDepth: integer(env, 'CACHE_REORG_DEPTH'),
      redis: boolean(env, 'CACHE_REDIS'),
      redisTtlSeconds: integer(env, 'CACHE_REDIS_TTL_SECONDS'),
      coalesce: boolean(env, 'COALESCE_READS'),
    }),
    apiKeys: apiKeys(env),
    rateLimit: strip({
      perIp: integer(env, 'RATE_LIMIT_PER_IP'),
      perKey: integer(env, 'RATE_LIMIT_PER_KEY'),
      windowSeconds: integer(env, 'RATE_LIMIT_WINDOW_SECONDS'),
    }),
    wsMaxConnections: integer(env, 'WS_MAX_CONNECTIONS'),
    wsMaxPerClient: integer(env, 'WS_MAX_PER_CLIENT'),
    wsMaxBufferedBytes: integer(env, 'WS_MAX_BUFFERED_BYTES'),
    wsStallMs: integer(env, 'WS_STALL_MS'),
    maxUpstreamAnswerBytes: integer(env, 'MAX_UPSTREAM_ANSWER_BYTES'),
    upstreamBusyBackoffMs: integer(env, 'UPSTREAM_BUSY_BACKOFF_MS'),
  });
}

/** What the schema cannot say: network names and API keys are unique. */
export function checkGatewayConfig(networks: NetworkConfig[], gateway: GatewayConfig): void {
  const names = networks.map((n) => n.name);
  if (new Set(names).size !== names.length) throw new ConfigError(`network names repeat: ${names.join(', ')}`);
  const keys = gateway.apiKeys.map((k) => k.key);
  if (new Set(keys).size !== keys.length) throw new ConfigError('an API key is listed twice');
}
