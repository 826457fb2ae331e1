/**
 * The gateway: the networks it serves and the method lists of each channel. Channels (channels/*.ts) look
 * networks up here and send requests through each network's relay.
 */
import type { Config } from '../generated/config.js';
import type { Logger } from '../shared/logger.js';
import { Network } from './network.js';
import { Relay } from './relay.js';
import { GET_METHODS, POST_METHODS, SUBSCRIPTION_METHODS } from './methods.js';
import { rpcErrors } from './errors.js';
import { ResultCache } from './cache/store.js';
import { Access } from './access/access.js';
import type { AccessLayer } from '../access/access.js';
import { connectRedis } from './redis.js';
import { knowMethods } from './metrics.js';
import type { Redis } from 'ioredis';
import { networkStatus, type NetworkStatus } from './status.js';

export interface NetworkEntry {
  network: Network;
  relay: Relay;
}

export class Gateway {
  readonly getMethods = new Set(GET_METHODS);
  readonly postMethods = new Set(POST_METHODS);
  readonly relayedMethods: Set<string>;
  readonly subscriptionMethods = new Set(SUBSCRIPTION_METHODS);

  private constructor(
    readonly config: Config,
    readonly logger: Logger,
    private readonly networks: Map<string, NetworkEntry>,
    /** API keys and rate limits of every gateway channel. */
    readonly access: Access,
    /** The shared Redis connection (cache, rate limits), when REDIS_URL is set. */
    readonly redis: Redis | undefined,
  ) {
    this.relayedMethods = new Set(config.gateway.relayedMethods);
  }

  /** Starts the networks; `access` is the service's access layer (it counts in Redis once connected). */
  static async start(config: Config, logger: Logger, access: AccessLayer): Promise<Gateway> {
    const settings = config.gateway;
    knowMethods(settings.relayedMethods);
    const redis = config.redisUrl ? await connectRedis(config.redisUrl, logger.child({ component: 'redis' })) : undefined;
    if (redis) access.useRedis(redis);
    const cache = new ResultCache({
      maxBytes: settings.cache.maxBytes,
      redis: settings.cache.redis ? redis : undefined,
      redisTtlSeconds: settings.cache.redisTtlSeconds,
      redisPrefix: 'ethgate:cache:',
      logger,
    });
    const networks = new Map<string, NetworkEntry>();
    const started = await Promise.allSettled(
      config.networks.map((nc) =>
        Network.start({ config: nc, gateway: config.gateway, dataDir: config.dataDir, logger }),
      ),
    );
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) {
      await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)));
      redis?.disconnect();
      throw (failed as PromiseRejectedResult).reason;
    }
    for (const s of started as PromiseFulfilledResult<Network>[]) {
      const relay = new Relay(s.value, {
        cache,
        reorgDepth: settings.cache.reorgDepth,
        coalesce: settings.cache.coalesce,
        maxLogsBlockRange: settings.maxLogsBlockRange,
        getLogsSplitBlocks: settings.getLogsSplitBlocks ?? 0,
      });
      networks.set(s.value.name, { network: s.value, relay });
    }
    return new Gateway(config, logger, networks, new Access(settings, access), redis);
  }

  get networkNames(): string[] {
    return [...this.networks.keys()];
  }

  has(name: string): boolean {
    return this.networks.has(name);
  }

  /** The network of that name, or the specification's 404 naming the known ones. */
  entry(name: string): NetworkEntry {
    const entry = this.networks.get(name);
    if (!entry) throw rpcErrors.unknownNetwork(name, this.networkNames);
    return entry;
  }

  network(name: string): Network {
    return this.entry(name).network;
  }

  /** Each network: whether it can serve, from the health checks' state (no upstream call). */
  health(): Record<string, boolean> {
    return Object.fromEntries([...this.networks.values()].map(({ network }) => [network.name, network.up]));
  }

  /** The networks' part of GET /status. */
  status(): Record<string, NetworkStatus> {
    return Object.fromEntries([...this.networks.values()].map((entry) => [entry.network.name, networkStatus(entry)]));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.networks.values()].map(({ network }) => network.stop()));
    this.redis?.disconnect();
  }
}
