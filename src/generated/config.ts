/* Generated from schemas/config.schema.json by `npm run gen:types`. Do not edit. */

/**
 * The service configuration after defaults, the optional CONFIG_FILE and the environment are merged.
 */
export interface Config {
  /**
   * Address the main listener binds (HOST).
   */
  host: string;
  /**
   * Main listener port (PORT); 0 picks a free one.
   */
  port: number;
  /**
   * Directory for the SQLite event store and embedded chain state (DATA_DIR).
   */
  dataDir: string;
  /**
   * PostgreSQL event store and read models (DATABASE_URL).
   */
  databaseUrl?: string;
  /**
   * PostgreSQL schema of the event store and read models (DATABASE_SCHEMA, default public).
   */
  databaseSchema?: string;
  /**
   * Shared cache and rate limits (REDIS_URL).
   */
  redisUrl?: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * @minItems 1
   */
  networks: NetworkConfig[];
  gateway: GatewayConfig;
  orderbook: OrderbookConfig;
}
export interface NetworkConfig {
  name: string;
  chainId: number;
  /**
   * Empty: the service runs an embedded anvil for this network.
   */
  upstreams: UpstreamConfig[];
  /**
   * Dedicated listener serving POST / and WebSocket for this network only.
   */
  port?: number;
}
export interface UpstreamConfig {
  url: string;
  /**
   * Share of reads among healthy primaries (default 1).
   */
  weight?: number;
  /**
   * Fallbacks serve only when no primary is healthy.
   */
  role?: 'primary' | 'fallback';
}
export interface GatewayConfig {
  /**
   * Methods relayed on {network_url}/ and WebSocket.
   */
  relayedMethods: string[];
  upstreamTimeoutMs: number;
  maxBodyBytes: number;
  maxBatchSize: number;
  /**
   * Widest eth_getLogs fromBlock..toBlock span; 0 disables the check.
   */
  maxLogsBlockRange: number;
  maxSubscriptionsPerConnection: number;
}
export interface OrderbookConfig {
  /**
   * Run the order book (ORDERBOOK=on|off, default on); off leaves a gateway-only service.
   */
  enabled: boolean;
  network: string;
  settlementContract?: string;
  /**
   * Block the indexer starts at on an external upstream (INDEXER_START_BLOCK; default: the head at its first start). An embedded chain is indexed from block 0.
   */
  indexerStartBlock?: number;
  /**
   * Price of one base unit of a token in native-token wei, as a decimal string.
   */
  tokenPrices: {
    [k: string]: string;
  };
  /**
   * Uniswap-V2-style pair (token0/token1/getReserves) of a token with nativeToken: its price is read from the pair's reserves (TOKEN_PRICE_POOLS).
   */
  tokenPricePools?: {
    [k: string]: string;
  };
  /**
   * The wrapped native token (e.g. WETH) the pools of tokenPricePools pair with; priced 1:1 (NATIVE_TOKEN).
   */
  nativeToken?: string;
  minValidToSeconds: number;
  gasPerTrade: number;
  feeRatioBps: number;
  feeQuoteTtlSeconds: number;
}
