/**
 * The order book's configuration slice: its defaults and the environment variables that set them. The one
 * loader (src/wiring/config.ts) composes the slices, merges the config file and validates the result.
 */
import type { OrderbookConfig } from '../generated/config.js';
import { ConfigError, boolean, integer, list, strip, type Env } from '../shared/env.js';

export function orderbookDefaults(): OrderbookConfig {
  return {
    enabled: true,
    network: 'mainnet',
    tokenPrices: {},
    minValidToSeconds: 60,
    gasPerTrade: 100_000,
    feeRatioBps: 0,
    feeQuoteTtlSeconds: 600,
    quoteMaxLive: 100_000,
    maxMarketOrderValiditySeconds: 3 * 3600,
    maxLimitOrderValiditySeconds: 365 * 24 * 3600,
    balanceCallGas: 200_000,
    streamHeartbeatMs: 15_000,
    streamMaxBufferedBytes: 1024 * 1024,
    devSolver: true,
    devSolverMaxOrders: 100,
    replayCooldownSeconds: 60,
    chainCallsPerSecond: 1000,
    chainCallsQueue: 10_000,
    streamStallMs: 30_000,
    streamCatchUpChunkBytes: 64 * 1024,
    streamMaxConnections: 1_000,
    streamMaxPerClient: 8,
    readyMaxLagMs: 10_000,
    readModelsWaitMs: 5_000,
    listingConcurrency: 2,
    listingQueue: 64,
    quoteConcurrency: 4,
    quoteQueue: 256,
  };
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

/** The order book's settings the environment sets (unset ones are left out, to keep the file's or the default). */
export function orderbookFromEnv(env: Env): Record<string, unknown> {
  return strip({
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
    quoteMaxLive: integer(env, 'QUOTE_MAX_LIVE'),
    maxMarketOrderValiditySeconds: integer(env, 'MAX_MARKET_ORDER_VALIDITY_SECONDS'),
    maxLimitOrderValiditySeconds: integer(env, 'MAX_LIMIT_ORDER_VALIDITY_SECONDS'),
    balanceCallGas: integer(env, 'BALANCE_CALL_GAS'),
    streamHeartbeatMs: integer(env, 'STREAM_HEARTBEAT_MS'),
    streamMaxBufferedBytes: integer(env, 'STREAM_MAX_BUFFERED_BYTES'),
    devSolver: boolean(env, 'DEV_SOLVER'),
    devSolverMaxOrders: integer(env, 'DEV_SOLVER_MAX_ORDERS'),
    streamStallMs: integer(env, 'STREAM_STALL_MS'),
    streamCatchUpChunkBytes: integer(env, 'STREAM_CATCHUP_CHUNK_BYTES'),
    streamMaxConnections: integer(env, 'STREAM_MAX_CONNECTIONS'),
    streamMaxPerClient: integer(env, 'STREAM_MAX_PER_CLIENT'),
    readyMaxLagMs: integer(env, 'READY_MAX_LAG_MS'),
    readModelsWaitMs: integer(env, 'READ_MODELS_WAIT_MS'),
    listingConcurrency: integer(env, 'LISTING_CONCURRENCY'),
    listingQueue: integer(env, 'LISTING_QUEUE'),
    quoteConcurrency: integer(env, 'QUOTE_CONCURRENCY'),
    quoteQueue: integer(env, 'QUOTE_QUEUE'),
    natsUrl: env.NATS_URL || undefined,
    natsStream: env.NATS_STREAM || undefined,
    replayCooldownSeconds: integer(env, 'REPLAY_COOLDOWN_SECONDS'),
    chainCallsPerSecond: integer(env, 'ORDERBOOK_CHAIN_CALLS_PER_SECOND'),
    chainCallsQueue: integer(env, 'ORDERBOOK_CHAIN_CALLS_QUEUE'),
  });
}

/** What the schema cannot say: pools need the token they pair with; the order book's network is served. */
export function checkOrderbookConfig(orderbook: OrderbookConfig, networkNames: string[]): void {
  const pools = orderbook.tokenPricePools;
  if (pools && Object.keys(pools).length > 0 && !orderbook.nativeToken) {
    throw new ConfigError('TOKEN_PRICE_POOLS needs NATIVE_TOKEN: the token the pools pair with');
  }
  if (orderbook.enabled && !networkNames.includes(orderbook.network)) {
    throw new ConfigError(`ORDERBOOK_NETWORK "${orderbook.network}" is not one of ${networkNames.join(', ')}`);
  }
}
