/**
 * Starting and stopping the whole service: listeners first (so /healthz answers 503 while starting), then
 * the gateway's networks (embedded chains included), then the order book.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import { logger, redactInLogs } from '../shared/logger.js';
import { collectProcessMetrics } from '../shared/metrics.js';
import { Gateway } from '../gateway/gateway.js';
import { WebSocketChannel } from '../gateway/channels/websocket.js';
import { createMainServer, createPartServer, type ServerParts, type HealthReport } from '../http/server.js';
import { gatewayFront, networkFront } from '../gateway/http-front.js';
import { orderbookFront, type OrderbookNow } from '../orderbook/api/http-part.js';
import { orderbookErrors } from '../orderbook/domain/errors.js';
import type { RunningOrderbook } from '../orderbook/index.js';
import { OrderbookSupervisor, type OrderbookStatus } from '../orderbook/supervisor.js';
import { orderbookNetworkOf } from './orderbook-network.js';
import type { ServiceStatus } from '../generated/status.js';
import { createExplorerHandler } from '../explorer/handler.js';
import { chainRpcOver } from '../orderbook/chain/rpc.js';
import { DevSolver } from '../devsolver/solver.js';
import { DEV_SOLVER } from './gpv2.js';
import { AccessLayer } from '../access/access.js';
import { secretsOf } from '../access/secrets.js';

export interface Service {
  /** http://host:port of the main listener. */
  url: string;
  /** http://host:port of each network's dedicated listener, for the networks that have one. */
  networkUrls: Record<string, string>;
  gateway: Gateway;
  /** Host check, callers, rate limits and operator routes of every listener. */
  access: AccessLayer;
  /** Absent when the order book is off (ORDERBOOK=off) or not up (see `books`). */
  readonly orderbook?: RunningOrderbook;
  /** The order book's supervisor (absent when it is off): its state, and the running book once up. */
  books?: OrderbookSupervisor;
  stop(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve(`http://${shownHost}:${address.port}`);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** The main listener's address as a client on this machine reaches it (a wildcard host is not one). */
function selfUrl(url: string): string {
  return url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
}

/**
 * The dev solver (src/devsolver/), when the order book runs on the embedded dev chain and DEV_SOLVER is not
 * off: it reaches the order book through this service's own API and the chain through the network's pool.
 */
function devSolverFor(config: Config, gateway: Gateway, url: string): DevSolver | undefined {
  if (!config.orderbook.enabled || !config.orderbook.devSolver) return undefined;
  const network = gateway.network(config.orderbook.network);
  const chainId = config.networks.find((n) => n.name === config.orderbook.network)?.chainId;
  if (!network.anvil || chainId === undefined) return undefined;
  return new DevSolver({
    apiUrl: selfUrl(url),
    rpc: chainRpcOver(network.pool),
    heads: network.tracker,
    chainId,
    maxOrders: config.orderbook.devSolverMaxOrders,
    solverKey: DEV_SOLVER.privateKey,
    log: logger,
  });
}

const ORDERBOOK_OFF: OrderbookStatus = { state: 'down', reason: 'off (ORDERBOOK=off)', indexerBlock: null, role: null };

export async function startService(config: Config): Promise<Service> {
  redactInLogs(secretsOf(config));
  const log = logger.child({ component: 'service' });
  collectProcessMetrics();
  let gateway: Gateway | undefined;
  let ws: WebSocketChannel | undefined;
  // Set once the gateway and its network listeners are up: until then the parts answer 503.
  let serving = false;
  let books: OrderbookSupervisor | undefined;
  let solver: DevSolver | undefined;
  const orderbookNow = (): OrderbookNow => {
    if (books?.running) return books.running;
    if (!config.orderbook.enabled) {
      return { absent: orderbookErrors.off() };
    }
    // Why it is down (a start-up error naming hosts and users) is for the log and the operator's /status.
    const description = !books || books.state === 'starting' ? 'the order book is starting' : 'the order book is down; it is retried in the background';
    return { absent: orderbookErrors.unavailable(description) };
  };
  const access = new AccessLayer(
    { access: config.access, rateLimit: config.gateway.rateLimit, apiKeys: config.gateway.apiKeys, bindHost: config.host },
    logger.child({ component: 'access' }),
  );
  const listenerOptions = { access, server: config.server };
  const parts: ServerParts = {
    gateway: gatewayFront({ gateway: () => (serving ? gateway : undefined), ws: () => ws }),
    orderbook: orderbookFront(orderbookNow, config.access.apiCosts),
    started: () => serving,
    explorer: createExplorerHandler(),
    // From the state the parts hold: no upstream call, no query. Which part is down, never why (the reasons,
    // which may name database hosts and users, are in the logs and GET /status).
    health: async (): Promise<HealthReport> => {
      if (!gateway) return { ready: false, status: 'starting' };
      const networks = gateway.health();
      const running = books?.running;
      const book = !config.orderbook.enabled ? undefined : running ? running.health() : { ready: false, status: books?.state ?? 'starting' };
      const down = [
        ...Object.entries(networks).filter(([, up]) => !up).map(([name]) => `network ${name}`),
        ...(book && !book.ready ? ['orderbook'] : []),
      ];
      const ready = down.length === 0;
      return { ready, status: ready ? 'ok' : 'degraded', ...(ready ? {} : { down }), networks, ...(book ? { orderbook: book } : {}) };
    },
    status: (): ServiceStatus => ({
      networks: gateway?.status() ?? {},
      orderbook: books?.status() ?? (config.orderbook.enabled ? { state: 'starting', reason: 'the service is starting', indexerBlock: null, role: null } : ORDERBOOK_OFF),
    }),
  };
  const main = createMainServer(parts, listenerOptions);
  const url = await listen(main, config.port, config.host);
  log.info({ url }, 'listening; starting networks');

  const servers: Server[] = [main];
  const networkUrls: Record<string, string> = {};
  try {
    gateway = await Gateway.start(config, logger, access);
    ws = new WebSocketChannel(gateway);
    for (const network of config.networks) {
      if (network.port === undefined) continue;
      const server = createPartServer(networkFront(gateway, ws, network.name), listenerOptions);
      servers.push(server);
      networkUrls[network.name] = await listen(server, network.port, config.host);
    }
    serving = true;
    if (config.orderbook.enabled) {
      const budget = { callsPerSecond: config.orderbook.chainCallsPerSecond, queue: config.orderbook.chainCallsQueue };
      const supervisor = new OrderbookSupervisor(config, orderbookNetworkOf(gateway.entry(config.orderbook.network), budget), logger);
      books = supervisor;
      supervisor.start();
      // The first attempt is awaited so that a healthy order book is up when start resolves; a failing one
      // is retried in the background while the gateway serves.
      await supervisor.untilSettled();
      solver = devSolverFor(config, gateway, url);
      solver?.start();
    }
  } catch (err) {
    await solver?.stop();
    await Promise.all(servers.map(close));
    await books?.stop();
    await gateway?.stop();
    throw err;
  }
  log.info({ url, networks: gateway.networkNames, networkUrls }, 'ready');

  const started = gateway;
  const supervisor = books;
  return {
    url,
    networkUrls,
    gateway: started,
    access,
    get orderbook() {
      return supervisor?.running;
    },
    books: supervisor,
    async stop() {
      await solver?.stop();
      ws?.close();
      await Promise.all(servers.map(close));
      await supervisor?.stop();
      await started.stop();
    },
  };
}
