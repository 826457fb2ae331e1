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

export interface Service {
  /** http://host:port of the main listener. */
  url: string;
  /** http://host:port of each network's dedicated listener, for the networks that have one. */
  networkUrls: Record<string, string>;
  gateway: Gateway;
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
  const parts: ServerParts = {
    health: async (): Promise<HealthReport> => {
      if (!gateway) return { ready: false, status: 'starting' };
      const networks = await gateway.health();
      const ready = Object.values(networks).every(Boolean);
      return { ready, status: ready ? 'ok' : 'degraded', networks };
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
  } catch (err) {
    await Promise.all(servers.map(close));
    await gateway?.stop();
    throw err;
  }
  log.info({ url, networks: gateway.networkNames, networkUrls }, 'ready');

  const started = gateway;
  return {
    url,
    networkUrls,
    gateway: started,
    async stop() {
      parts.ws?.close();
      await Promise.all(servers.map(close));
      await started.stop();
    },
  };
}
