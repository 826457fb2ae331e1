/**
 * Starting and stopping the whole service: listeners first (so /healthz answers 503 while starting), then
 * the gateway's networks (embedded chains included), then the order book.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import { logger } from './logger.js';
import { Gateway } from './gateway/gateway.js';
import { WebSocketChannel } from './gateway/channels/websocket.js';
import { createMainServer, createNetworkServer, type ServerParts, type HealthReport } from './http/server.js';
import { startOrderbook, type RunningOrderbook } from './orderbook/index.js';
import { createExplorerHandler } from './explorer/handler.js';

export interface Service {
  /** http://host:port of the main listener. */
  url: string;
  /** http://host:port of each network's dedicated listener, for the networks that have one. */
  networkUrls: Record<string, string>;
  gateway: Gateway;
  /** Absent when the order book is off (ORDERBOOK=off). */
  orderbook?: RunningOrderbook;
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

export async function startService(config: Config): Promise<Service> {
  const log = logger.child({ component: 'service' });
  let gateway: Gateway | undefined;
  let orderbook: RunningOrderbook | undefined;
  const parts: ServerParts = {
    explorer: createExplorerHandler(),
    health: async (): Promise<HealthReport> => {
      if (!gateway) return { ready: false, status: 'starting' };
      const networks = await gateway.health();
      const book = config.orderbook.enabled ? ((await orderbook?.health()) ?? { ready: false, status: 'starting' }) : undefined;
      const ready = Object.values(networks).every(Boolean) && (book === undefined || book.ready);
      return { ready, status: ready ? 'ok' : 'degraded', networks, ...(book ? { orderbook: book } : {}) };
    },
  };
  const main = createMainServer(parts);
  const url = await listen(main, config.port, config.host);
  log.info({ url }, 'listening; starting networks');

  const servers: Server[] = [main];
  const networkUrls: Record<string, string> = {};
  try {
    gateway = await Gateway.start(config, logger);
    const ws = new WebSocketChannel(gateway);
    for (const network of config.networks) {
      if (network.port === undefined) continue;
      const server = createNetworkServer(gateway, ws, network.name);
      servers.push(server);
      networkUrls[network.name] = await listen(server, network.port, config.host);
    }
    parts.ws = ws;
    parts.gateway = gateway;
    if (config.orderbook.enabled) {
      orderbook = await startOrderbook(config, gateway, logger);
      parts.orderbook = orderbook.handler;
    }
  } catch (err) {
    await Promise.all(servers.map(close));
    await gateway?.stop();
    throw err;
  }
  log.info({ url, networks: gateway.networkNames, networkUrls }, 'ready');

  const started = gateway;
  const book = orderbook;
  return {
    url,
    networkUrls,
    gateway: started,
    orderbook: book,
    async stop() {
      parts.ws?.close();
      await Promise.all(servers.map(close));
      await book?.stop();
      await started.stop();
    },
  };
}
