/**
 * The one config loader: embedded defaults, then the optional JSON file named by CONFIG_FILE, then the
 * environment; the merged result is checked against schemas/config.schema.json before anything starts.
 */
import { readFileSync } from 'node:fs';
import type { ApiKeyConfig, Config, NetworkConfig, UpstreamConfig } from '../generated/config.js';
import { validator, describeError } from '../shared/schemas.js';
import { DEFAULT_RELAYED_METHODS } from '../gateway/methods.js';
import { DEFAULT_MAX_JSON_DEPTH } from '../http/json-depth.js';

export type {
  Config,
  NetworkConfig,
  GatewayConfig,
  OrderbookConfig,
  UpstreamHealthConfig,
  ApiKeyConfig,
  RateLimitConfig,
} from '../generated/config.js';

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

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function defaults(): Config {
  return {
    host: '127.0.0.1',
    port: 8080,
    dataDir: './data',
    logLevel: 'info',
    maxJsonDepth: DEFAULT_MAX_JSON_DEPTH,
    networks: DEFAULT_NETWORKS.map((name) => ({ name, chainId: KNOWN_CHAIN_IDS[name], upstreams: [] })),
    gateway: {
      relayedMethods: [...DEFAULT_RELAYED_METHODS],
      upstreamTimeoutMs: 10_000,
      upstreamBatchCalls: 20,
      maxBodyBytes: 5 * 1024 * 1024,
      maxBatchSize: 100,
      maxLogsBlockRange: 10_000,
      maxSubscriptionsPerConnection: 100,
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
      cache: {
        maxBytes: 64 * 1024 * 1024,
        reorgDepth: 64,
        redis: true,
        redisTtlSeconds: 24 * 3600,
        coalesce: true,
      },
      apiKeys: [],
      rateLimit: { perIp: 0, perKey: 0, windowSeconds: 1 },
      trustProxy: 0,
    },
    orderbook: {
      enabled: true,
      network: 'mainnet',
      tokenPrices: {},
      minValidToSeconds: 60,
      gasPerTrade: 100_000,
      feeRatioBps: 0,
      feeQuoteTtlSeconds: 600,
      streamHeartbeatMs: 15_000,
      streamMaxBufferedBytes: 1024 * 1024,
    },
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Objects merge key by key; arrays and scalars from `over` replace those of `base`. */
function merge<T>(base: T, over: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(over)) return (over === undefined ? base : over) as T;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) out[key] = merge(out[key], value);
  return out as T;
}

function integer(env: Env, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a non-negative integer, got "${raw}"`);
  return Number(raw);
}

/** A decimal number such as 0.25. */
function decimal(env: Env, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+(\.\d+)?$/.test(raw)) throw new ConfigError(`${name} must be a non-negative number, got "${raw}"`);
  return Number(raw);
}

/** true/false, 1/0 or on/off. */
function boolean(env: Env, name: string): boolean | undefined {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'true' || raw === '1' || raw === 'on') return true;
  if (raw === 'false' || raw === '0' || raw === 'off') return false;
  throw new ConfigError(`${name} must be on or off (true or false), got "${env[name]}"`);
}

/**
 * TRUST_PROXY: how many proxies in front of the service append to X-Forwarded-For (a number), or on/off
 * (on is one: a single nginx or load balancer).
 */
function proxyHops(env: Env, name: string): number | undefined {
  const raw = env[name]?.toLowerCase();
  if (raw !== undefined && /^\d+$/.test(raw)) return Number(raw);
  const on = boolean(env, name);
  return on === undefined ? undefined : on ? 1 : 0;
}

function list(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  return raw.split(',').map((s) => s.trim()).filter(Boolean);
}

/**
 * TOKEN_PRICES=0xabc…=1000000000,0xdef…=2.5 (native-token wei per base unit);
 * TOKEN_PRICE_POOLS=0xtoken…=0xpair…,… (same shape, the value is a pair address).
 */
function addressMap(raw: string | undefined, name: string, valueName: string): Record<string, string> | undefined {
  const entries = list(raw);
  if (!entries) return undefined;
  return Object.fromEntries(
    entries.map((entry) => {
      const [address, value] = entry.split('=');
      if (!address || !value) throw new ConfigError(`${name} entry "${entry}" is not address=${valueName}`);
      return [address.toLowerCase(), value];
    }),
  );
}

function envNetworks(env: Env, fromFile: NetworkConfig[]): NetworkConfig[] {
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

function fromEnv(env: Env, base: Config): Record<string, unknown> {
  const strip = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  return strip({
    host: env.HOST,
    port: integer(env, 'PORT'),
    dataDir: env.DATA_DIR,
    databaseUrl: env.DATABASE_URL || undefined,
    databaseSchema: env.DATABASE_SCHEMA || undefined,
    redisUrl: env.REDIS_URL || undefined,
    logLevel: env.LOG_LEVEL,
    maxJsonDepth: integer(env, 'MAX_JSON_DEPTH'),
    networks: envNetworks(env, base.networks),
    gateway: strip({
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
      trustProxy: proxyHops(env, 'TRUST_PROXY'),
    }),
    orderbook: strip({
      enabled: boolean(env, 'ORDERBOOK'),
      network: env.ORDERBOOK_NETWORK,
      settlementContract: env.SETTLEMENT_CONTRACT,
      indexerStartBlock: integer(env, 'INDEXER_START_BLOCK'),
      tokenPrices: addressMap(env.TOKEN_PRICES, 'TOKEN_PRICES', 'price'),
      tokenPricePools: addressMap(env.TOKEN_PRICE_POOLS, 'TOKEN_PRICE_POOLS', 'pair'),
      nativeToken: env.NATIVE_TOKEN,
      minValidToSeconds: integer(env, 'MIN_VALID_TO_SECONDS'),
      gasPerTrade: integer(env, 'GAS_PER_TRADE'),
      feeRatioBps: integer(env, 'FEE_RATIO_BPS'),
      feeQuoteTtlSeconds: integer(env, 'FEE_QUOTE_TTL_SECONDS'),
      streamHeartbeatMs: integer(env, 'STREAM_HEARTBEAT_MS'),
      streamMaxBufferedBytes: integer(env, 'STREAM_MAX_BUFFERED_BYTES'),
      natsUrl: env.NATS_URL || undefined,
      natsStream: env.NATS_STREAM || undefined,
    }),
  });
}

export function loadConfig(env: Env = process.env): Config {
  let config = defaults();
  if (env.CONFIG_FILE) {
    let file: unknown;
    try {
      file = JSON.parse(readFileSync(env.CONFIG_FILE, 'utf8'));
    } catch (err) {
      throw new ConfigError(`CONFIG_FILE ${env.CONFIG_FILE}: ${(err as Error).message}`);
    }
    config = merge(config, file);
  }
  config = merge(config, fromEnv(env, config));

  const validate = validator<Config>('config.schema.json');
  if (!validate(config)) throw new ConfigError(describeError(validate.errors, 'config'));
  const names = config.networks.map((n) => n.name);
  if (new Set(names).size !== names.length) throw new ConfigError(`network names repeat: ${names.join(', ')}`);
  const keys = config.gateway.apiKeys.map((k) => k.key);
  if (new Set(keys).size !== keys.length) throw new ConfigError('an API key is listed twice');
  const pools = config.orderbook.tokenPricePools;
  if (pools && Object.keys(pools).length > 0 && !config.orderbook.nativeToken) {
    throw new ConfigError('TOKEN_PRICE_POOLS needs NATIVE_TOKEN: the token the pools pair with');
  }
  if (config.orderbook.enabled && !names.includes(config.orderbook.network)) {
    throw new ConfigError(`ORDERBOOK_NETWORK "${config.orderbook.network}" is not one of ${names.join(', ')}`);
  }
  return config;
}
