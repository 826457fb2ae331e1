/**
 * One network of the gateway: its upstream pool, its subscription hub and, when no upstream is configured,
 * the embedded anvil that serves as its upstream.
 */
import { join } from 'node:path';
import type { GatewayConfig, NetworkConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { Anvil } from '../chain/anvil.js';
import { HttpUpstream } from './upstream/http.js';
import { WsUpstream } from './upstream/ws.js';
import { UpstreamPool, type PoolMember } from './upstream/pool.js';
import type { UpstreamTransport } from './upstream/types.js';
import { SubscriptionHub } from './subscriptions.js';

export interface NetworkOptions {
  config: NetworkConfig;
  gateway: GatewayConfig;
  dataDir: string;
  logger: Logger;
}

export class Network {
  private constructor(
    readonly name: string,
    readonly chainId: number,
    readonly pool: UpstreamPool,
    readonly hub: SubscriptionHub,
    /** The embedded dev chain, when this network has no configured upstream. */
    readonly anvil: Anvil | undefined,
    private readonly extra: UpstreamTransport[],
  ) {}

  static async start({ config, gateway, dataDir, logger }: NetworkOptions): Promise<Network> {
    const timeoutMs = gateway.upstreamTimeoutMs;
    const log = logger.child({ network: config.name });
    const poolOptions = { network: config.name, chainId: config.chainId, health: gateway.health, logger };
    if (config.upstreams.length === 0) {
      const anvil = new Anvil({ name: config.name, chainId: config.chainId, runDir: join(dataDir, 'run'), logger: log });
      await anvil.start();
      const name = `${config.name}/embedded`;
      const http = new HttpUpstream({ name, url: anvil.httpUrl, timeoutMs });
      const ws = new WsUpstream({ name, url: anvil.wsUrl, timeoutMs, logger: log });
      log.info({ url: anvil.httpUrl, chainId: config.chainId }, 'embedded anvil started');
      const pool = new UpstreamPool([{ transport: http, url: anvil.httpUrl }], poolOptions);
      await pool.start();
      return new Network(config.name, config.chainId, pool, new SubscriptionHub(ws, config.name, log), anvil, [ws]);
    }
    const members = config.upstreams.map((u, i): PoolMember => {
      const name = `${config.name}/${i}`;
      const transport: UpstreamTransport = /^wss?:/.test(u.url)
        ? new WsUpstream({ name, url: u.url, timeoutMs, logger: log })
        : new HttpUpstream({ name, url: u.url, timeoutMs });
      return { transport, role: u.role, weight: u.weight, url: u.url };
    });
    const ws = members.map((m) => m.transport).find((t): t is WsUpstream => t instanceof WsUpstream);
    const pool = new UpstreamPool(members, poolOptions);
    await pool.start();
    return new Network(config.name, config.chainId, pool, new SubscriptionHub(ws, config.name, log), undefined, []);
  }

  /** The network's head: the highest block its upstreams reported. */
  get head(): number | undefined {
    return this.pool.head;
  }

  /** Whether an upstream answers at all (used by /healthz). */
  async reachable(): Promise<boolean> {
    try {
      const outcome = await this.pool.send({ method: 'eth_chainId', params: [] });
      return outcome.error === undefined;
    } catch {
      return false;
    }
  }

  async stop(): Promise<void> {
    await this.pool.close();
    await Promise.all(this.extra.map((t) => t.close()));
    await this.anvil?.stop();
  }
}
