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
   * Deepest nesting of arrays and objects accepted in a request body, WebSocket frame or JSON query value, on both APIs (MAX_JSON_DEPTH).
   */
  maxJsonDepth: number;
  /**
   * @minItems 1
   */
  networks: NetworkConfig[];
  gateway: GatewayConfig;
  orderbook: OrderbookConfig;
  access: AccessConfig;
  server: ServerConfig;
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
  /**
   * Reads to one HTTP upstream in the same turn of the event loop go out as one JSON-RPC batch of at most this many (UPSTREAM_BATCH_CALLS); 1 sends each call alone.
   */
  upstreamBatchCalls?: number;
  maxBodyBytes: number;
  maxBatchSize: number;
  /**
   * Widest eth_getLogs fromBlock..toBlock span; 0 disables the check.
   */
  maxLogsBlockRange: number;
  maxSubscriptionsPerConnection: number;
  /**
   * How often the head tracker asks an upstream without WebSocket for its latest block (docs/gateway-head.md).
   */
  headPollIntervalMs?: number;
  /**
   * eth_getLogs over more than maxLogsBlockRange blocks is split into sub-ranges of this many blocks; 0 (default) refuses it with -32602 instead.
   */
  getLogsSplitBlocks?: number;
  /**
   * WebSocket clients are pinged this often; one that has not answered the previous ping is dropped with its subscriptions. 0 disables it.
   */
  wsPingIntervalMs: number;
  /**
   * WebSocket connections the service holds at once, all clients together (WS_MAX_CONNECTIONS); past it an upgrade is refused with 503.
   */
  wsMaxConnections: number;
  /**
   * WebSocket connections one client address (an IPv6 client: its /64) may hold at once (WS_MAX_PER_CLIENT); past it an upgrade is refused with 429.
   */
  wsMaxPerClient: number;
  /**
   * Bytes a WebSocket client may leave unread before it is disconnected with close code 1008 (WS_MAX_BUFFERED_BYTES).
   */
  wsMaxBufferedBytes: number;
  /**
   * How long a WebSocket client may leave messages unread before it is disconnected with close code 1008 (WS_STALL_MS).
   */
  wsStallMs: number;
  /**
   * Largest answer read from an upstream (MAX_UPSTREAM_ANSWER_BYTES); a larger one fails the call with 502 and is not counted against the upstream's health.
   */
  maxUpstreamAnswerBytes: number;
  /**
   * How long an upstream that answered 429 or a rate-limit error is tried last (UPSTREAM_BUSY_BACKOFF_MS), doubled while it stays busy, up to 60 s; its Retry-After when longer.
   */
  upstreamBusyBackoffMs: number;
  health: UpstreamHealthConfig;
  hedge?: HedgeConfig;
  cache: CacheConfig;
  /**
   * When not empty, every gateway request needs one of these keys (API_KEYS, API_KEYS_FILE).
   */
  apiKeys: ApiKeyConfig[];
  rateLimit: RateLimitConfig;
}
export interface UpstreamHealthConfig {
  /**
   * How often each upstream is asked eth_blockNumber (HEALTH_CHECK_INTERVAL_MS).
   */
  checkIntervalMs: number;
  /**
   * An upstream further than this behind the best head is taken out (MAX_UPSTREAM_LAG_BLOCKS).
   */
  maxLagBlocks: number;
  /**
   * Share of failed calls in the window above which an upstream is taken out (UPSTREAM_MAX_ERROR_RATE).
   */
  maxErrorRate: number;
  /**
   * Length of the sliding error-rate window (UPSTREAM_ERROR_WINDOW_MS).
   */
  errorWindowMs: number;
  /**
   * Calls the window needs before its error rate counts (UPSTREAM_ERROR_MIN_SAMPLES).
   */
  minSamples: number;
  /**
   * Retry a read on another upstream when the answer says the node lacks the block or state (RETRY_BEHIND_ERRORS).
   */
  retryBehindErrors: boolean;
}
/**
 * Hedged reads (docs/gateway.md, "Hedged reads"): when the upstream asked first has not answered a read within the quantile of the time that method's recent reads took to be answered, the next upstream is asked as well and the first answer wins.
 */
export interface HedgeConfig {
  /**
   * The quantile of recent answer times after which another upstream is asked (HEDGE_QUANTILE, e.g. 0.9); 0 turns hedging off.
   */
  quantile: number;
  /**
   * Other upstreams asked at most per call, one after another (HEDGE_MAX).
   */
  max: number;
  /**
   * Never hedge sooner than this, nor before 20 latencies of the method are known (HEDGE_MIN_DELAY_MS).
   */
  minDelayMs: number;
  /**
   * Never wait longer than this before hedging (HEDGE_MAX_DELAY_MS).
   */
  maxDelayMs: number;
}
export interface CacheConfig {
  /**
   * In-process cache size in bytes of JSON; 0 turns the in-process cache off (CACHE_MAX_BYTES).
   */
  maxBytes: number;
  /**
   * Blocks at least this far below the head (or at/below finalized) are final for the cache (CACHE_REORG_DEPTH).
   */
  reorgDepth: number;
  /**
   * Share cached results through Redis when REDIS_URL is set (CACHE_REDIS).
   */
  redis: boolean;
  /**
   * Lifetime of a cached result in Redis (CACHE_REDIS_TTL_SECONDS).
   */
  redisTtlSeconds: number;
  /**
   * Answer identical reads in flight with one upstream call (COALESCE_READS).
   */
  coalesce: boolean;
}
export interface ApiKeyConfig {
  key: string;
  /**
   * A name for logs; the key itself is never logged.
   */
  label?: string;
  /**
   * Calls per rate-limit window for this key, replacing RATE_LIMIT_PER_KEY; 0 means unlimited.
   */
  rateLimit?: number;
}
export interface RateLimitConfig {
  /**
   * Calls per window from one client address (an IPv6 client: its /64), on every route: a JSON-RPC call counts one, an order book request its route's cost; 0 means unlimited (RATE_LIMIT_PER_IP).
   */
  perIp: number;
  /**
   * Calls per window with one API key, on every route; 0 means unlimited (RATE_LIMIT_PER_KEY).
   */
  perKey: number;
  /**
   * Length of the rate-limit window (RATE_LIMIT_WINDOW_SECONDS).
   */
  windowSeconds: number;
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
  /**
   * A market order (priced at or better than its quote) may be valid at most this long from now, else 400 ExcessiveValidTo (MAX_MARKET_ORDER_VALIDITY_SECONDS, default 10800: CoW's 3 hours).
   */
  maxMarketOrderValiditySeconds: number;
  /**
   * Any other order but a presigned one may be valid at most this long from now, else 400 ExcessiveValidTo (MAX_LIMIT_ORDER_VALIDITY_SECONDS, default 31536000: CoW's one year).
   */
  maxLimitOrderValiditySeconds: number;
  gasPerTrade: number;
  feeRatioBps: number;
  /**
   * How long a quote holds, of GET /api/v1/tokens/{t}/fee and of POST /api/v1/quote (FEE_QUOTE_TTL_SECONDS, default 600).
   */
  feeQuoteTtlSeconds: number;
  /**
   * Most quotes of POST /api/v1/quote kept at once; a new one beyond it deletes the oldest (QUOTE_MAX_LIVE, default 100000).
   */
  quoteMaxLive: number;
  /**
   * Gas given to each balanceOf/allowance eth_call of the balance reads; a token that needs more is unknown for that owner until it reads again (BALANCE_CALL_GAS, default 200000).
   */
  balanceCallGas: number;
  /**
   * Longest silence on an event stream before a heartbeat comment (STREAM_HEARTBEAT_MS, default 15000).
   */
  streamHeartbeatMs: number;
  /**
   * Bytes a stream client may leave unread before it is disconnected (STREAM_MAX_BUFFERED_BYTES, default 1 MiB).
   */
  streamMaxBufferedBytes: number;
  /**
   * Run the dev solver when the order book's chain is the embedded dev chain (DEV_SOLVER=on|off, default on): it settles crossing orders of GET /api/v1/auction as the allow-listed dev account #1. It never runs on an external upstream.
   */
  devSolver: boolean;
  /**
   * Most orders of one auction the dev solver looks at, the oldest first (DEV_SOLVER_MAX_ORDERS, default 100).
   */
  devSolverMaxOrders: number;
  /**
   * How long a stream client may leave written bytes unread, in catch-up or live, before it is disconnected (STREAM_STALL_MS, default 30000).
   */
  streamStallMs: number;
  /**
   * Bytes of frames a catching-up stream makes at a time and holds while its client reads them (STREAM_CATCHUP_CHUNK_BYTES, default 64 KiB).
   */
  streamCatchUpChunkBytes: number;
  /**
   * Event and solver streams open at once, all clients together (STREAM_MAX_CONNECTIONS, default 1000).
   */
  streamMaxConnections: number;
  /**
   * Event and solver streams one client address (an IPv6 client: its /64) may hold open (STREAM_MAX_PER_CLIENT, default 8).
   */
  streamMaxPerClient: number;
  /**
   * The order book stays ready while its read models were level with the log head within this long (READY_MAX_LAG_MS, default 10000).
   */
  readyMaxLagMs: number;
  /**
   * How long a POST or DELETE waits for the read models to show its events before it answers without them (READ_MODELS_WAIT_MS, default 5000).
   */
  readModelsWaitMs: number;
  /**
   * Listings (GET /api/v1/orders, trades, events, an account's orders and the other routes of the list class) handled at once, all clients together (LISTING_CONCURRENCY, default 2).
   */
  listingConcurrency: number;
  /**
   * Listings that may wait for their turn; one more is refused 503 ServiceUnavailable with Retry-After (LISTING_QUEUE, default 64).
   */
  listingQueue: number;
  /**
   * Quotes (POST /api/v1/quote, GET /api/v1/tokens/{t}/fee, GET /api/v1/token/{t}/native_price) handled at once, all clients together (QUOTE_CONCURRENCY, default 4).
   */
  quoteConcurrency: number;
  /**
   * Quotes that may wait for their turn; one more is refused 503 ServiceUnavailable with Retry-After (QUOTE_QUEUE, default 256).
   */
  quoteQueue: number;
  /**
   * NATS server with JetStream the log's events are published to, one message per position (NATS_URL; off when unset).
   */
  natsUrl?: string;
  /**
   * The JetStream stream (created if missing) and subject prefix: events go to <natsStream>.<event type> (NATS_STREAM, default ethgate_events).
   */
  natsStream?: string;
  /**
   * Least time between two starts of POST /api/v1/projections/replay; a replay asked for sooner is refused 429 with Retry-After (REPLAY_COOLDOWN_SECONDS, default 60).
   */
  replayCooldownSeconds: number;
  /**
   * The order book's own budget of chain calls (through the gateway's relay), per second; calls over it wait in a queue of chainCallsQueue; 0 means unlimited (ORDERBOOK_CHAIN_CALLS_PER_SECOND, default 1000).
   */
  chainCallsPerSecond: number;
  /**
   * Chain calls of the order book that may wait for the budget; one more fails at once (ORDERBOOK_CHAIN_CALLS_QUEUE, default 10000).
   */
  chainCallsQueue: number;
}
export interface AccessConfig {
  /**
   * Host header values served, with port or without; *.example.com matches its subdomains, * everything (ALLOWED_HOSTS). Absent: localhost, *.localhost, the loopback addresses and HOST.
   */
  allowedHosts?: string[];
  /**
   * Bearer token of the operator routes (/metrics, /status, POST /api/v1/projections/replay) (OPERATOR_TOKEN). Absent: those routes answer loopback clients only.
   */
  operatorToken?: string;
  /**
   * Addresses or CIDR ranges of the proxies in front of the service: X-Forwarded-For is read only from them (TRUST_PROXY).
   */
  trustedProxies: string[];
  /**
   * When above 0, at most this many X-Forwarded-For entries are read from the right (TRUST_PROXY=<hops>, which also trusts loopback proxies only); 0 reads while the entries are trusted proxies.
   */
  proxyHops: number;
  /**
   * What one order book request costs against the rate limits, by route class; every other route costs 1.
   */
  apiCosts: {
    /**
     * POST /api/v1/quote and GET /api/v1/tokens/{sellToken}/fee (API_COST_QUOTE, default 5).
     */
    quote: number;
    /**
     * POST and DELETE of orders (API_COST_ORDER, default 5).
     */
    order: number;
    /**
     * Answers that list or scan: GET /api/v1/orders, orders by owner, by transaction and by UIDs, trades (v1 and v2), events, projections and total surplus (API_COST_LIST, default 5).
     */
    list: number;
  };
  /**
   * Refused API keys or operator tokens one client address may present per minute; past it every request carrying a key or token is answered 429 until the minute ends (KEY_FAILURES_PER_MINUTE, default 20).
   */
  keyFailuresPerMinute: number;
}
export interface ServerConfig {
  /**
   * Time a client has to send a request's headers (HEADERS_TIMEOUT_MS, default 10000); then 408.
   */
  headersTimeoutMs: number;
  /**
   * Time a client has to send a whole request, body included (REQUEST_TIMEOUT_MS, default 30000); then 408. Streams and WebSockets are not cut by it once the request is in.
   */
  requestTimeoutMs: number;
  /**
   * An idle keep-alive connection is closed after this long (KEEP_ALIVE_TIMEOUT_MS, default 5000).
   */
  keepAliveTimeoutMs: number;
  /**
   * Open connections per listener; more are closed as they arrive (MAX_CONNECTIONS, default 10000).
   */
  maxConnections: number;
}
