/**
 * The one config loader: it composes the parts' slices (src/gateway/config.ts, src/orderbook/config.ts)
 * with the process's own settings (address, port, data directory, databases, log level, JSON depth) into
 * the embedded defaults, then merges the optional JSON file named by CONFIG_FILE, then the environment; the
 * merged result is checked against schemas/config.schema.json before anything starts.
 */
import { readFileSync } from 'node:fs';
import type { Config } from '../generated/config.js';
import { validator, describeError } from '../shared/schemas.js';
import { ConfigError, integer, strip, type Env } from '../shared/env.js';
import { checkGatewayConfig, gatewayDefaults, gatewayFromEnv, networkDefaults, networksFromEnv } from '../gateway/config.js';
import { checkOrderbookConfig, orderbookDefaults, orderbookFromEnv } from '../orderbook/config.js';
import { DEFAULT_MAX_JSON_DEPTH } from '../http/json-depth.js';
import { checkServerConfig, serverDefaults, serverFromEnv } from '../http/config.js';
import { accessDefaults, accessFromEnv, checkAccessConfig } from '../access/config.js';

export type {
  Config,
  NetworkConfig,
  GatewayConfig,
  OrderbookConfig,
  UpstreamHealthConfig,
  ApiKeyConfig,
  RateLimitConfig,
  AccessConfig,
  ServerConfig,
} from '../generated/config.js';
export { ConfigError } from '../shared/env.js';

function defaults(): Config {
  return {
    host: '127.0.0.1',
    port: 8080,
    dataDir: './data',
    logLevel: 'info',
    maxJsonDepth: DEFAULT_MAX_JSON_DEPTH,
    networks: networkDefaults(),
    gateway: gatewayDefaults(),
    orderbook: orderbookDefaults(),
    access: accessDefaults(),
    server: serverDefaults(),
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

function fromEnv(env: Env, base: Config): Record<string, unknown> {
  return strip({
    host: env.HOST,
    port: integer(env, 'PORT'),
    dataDir: env.DATA_DIR,
    databaseUrl: env.DATABASE_URL || undefined,
    databaseSchema: env.DATABASE_SCHEMA || undefined,
    redisUrl: env.REDIS_URL || undefined,
    logLevel: env.LOG_LEVEL,
    maxJsonDepth: integer(env, 'MAX_JSON_DEPTH'),
    networks: networksFromEnv(env, base.networks),
    gateway: gatewayFromEnv(env),
    orderbook: orderbookFromEnv(env),
    access: accessFromEnv(env),
    server: serverFromEnv(env),
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
  checkGatewayConfig(config.networks, config.gateway);
  checkOrderbookConfig(config.orderbook, config.networks.map((n) => n.name));
  checkAccessConfig(config.access);
  checkServerConfig(config.server);
  return config;
}
