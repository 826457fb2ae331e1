/**
 * The listeners' configuration slice: the bounds of what one connection may hold (HEADERS_TIMEOUT_MS,
 * REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, MAX_CONNECTIONS). The one loader (src/wiring/config.ts)
 * composes the slices, merges the config file and validates the result.
 */
import type { ServerConfig } from '../generated/config.js';
import { ConfigError, integer, strip, type Env } from '../shared/env.js';

export function serverDefaults(): ServerConfig {
  return {
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    keepAliveTimeoutMs: 5_000,
    maxConnections: 10_000,
  };
}

export function serverFromEnv(env: Env): Record<string, unknown> {
  return strip({
    headersTimeoutMs: integer(env, 'HEADERS_TIMEOUT_MS'),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS'),
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS'),
    maxConnections: integer(env, 'MAX_CONNECTIONS'),
  });
}

/** Node refuses headers allowed longer than the whole request. */
export function checkServerConfig(server: ServerConfig): void {
  if (server.headersTimeoutMs > server.requestTimeoutMs) throw new ConfigError('HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS');
}
