/**
 * One network of the gateway: its upstream pool, its head tracker, its subscription hub and, when no upstream is configured,
 * the embedded anvil that serves as its upstream.
 */
import { join } from 'node:path';
import type { GatewayConfig, NetworkConfig } from '../generated/config.js';
import type { Logger } from '../shared/logger.js';
import { Anvil } from '../devchain/anvil.js';
import { HttpUpstream } from './upstream/http.js';
import { WsUpstream } from './upstream/ws.js';
import { UpstreamPool, type PoolMember } from './upstream/pool.js';
import type { UpstreamTransport } from './upstream/types.js';
import { SubscriptionHub } from './subscriptions.js';
import { HeadTracker } from './head/tracker.js';
import { atLeast } from './upstream/consistency.js';
import type { RpcOutcome } from './jsonrpc.js';
import type { UpstreamCall } from './upstream/types.js';

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
    /** The network's head across its upstreams (docs/gateway-head.md). */
    readonly tracker: HeadTracker,
    /** The embedded dev chain, when this network has no configured upstream. */
    readonly anvil: Anvil | undefined,
    private readonly extra: UpstreamTransport[],
  ) {}

  static async start({ config, gateway, dataDir, logger }: NetworkOptions): Promise<Network> {
    const timeoutMs = gateway.upstreamTimeoutMs;
    const batchCalls = gateway.upstreamBatchCalls;
    const maxAnswerBytes = gateway.maxUpstreamAnswerBytes;
    const log = logger.child({ network: config.name });
    const poolOptions = {
      network: config.name,
      chainId: config.chainId,
      health: gateway.health,
      hedge: gateway.hedge,
      busyBackoffMs: gateway.upstreamBusyBackoffMs,
      logger,
    };
    let anvil: Anvil | undefined;
    let members: PoolMember[];
    /** Where heads come from: for the embedded chain its WebSocket, which the pool does not use. */
    let headSources: UpstreamTransport[];
    const extra: UpstreamTransport[] = [];
    if (config.upstreams.length === 0) {
      anvil = new Anvil({ name: config.name, chainId: config.chainId, runDir: join(dataDir, 'run'), logger: log });
      await anvil.start();
      const name = `${config.name}/embedded`;
      const http = new HttpUpstream({ name, network: config.name, url: anvil.httpUrl, timeoutMs, batchCalls, maxAnswerBytes });
      const ws = new WsUpstream({ name, url: anvil.wsUrl, timeoutMs, logger: log, maxAnswerBytes });
      log.info({ url: anvil.httpUrl, chainId: config.chainId }, 'embedded anvil started');
      members = [{ transport: http, url: anvil.httpUrl }];
      headSources = [ws];
      extra.push(ws);
    } else {
      members = config.upstreams.map((u, i): PoolMember => {
        const name = `${config.name}/${i}`;
        const transport: UpstreamTransport = /^wss?:/.test(u.url)
          ? new WsUpstream({ name, url: u.url, timeoutMs, logger: log, maxAnswerBytes })
          : new HttpUpstream({ name, network: config.name, url: u.url, timeoutMs, batchCalls, maxAnswerBytes });
        return { transport, role: u.role, weight: u.weight, url: u.url };
      });
      headSources = members.map((m) => m.transport);
    }
    const pool = new UpstreamPool(members, poolOptions);
    const tracker = new HeadTracker(headSources, {
      network: config.name,
      pollIntervalMs: gateway.headPollIntervalMs ?? 1_000,
      logger,
      send: (call) => pool.send(call),
    });
    pool.useHeads(tracker);
    await Promise.all([tracker.start(), pool.start()]);
    const wsUpstreams = headSources.filter((t): t is WsUpstream => t instanceof WsUpstream);
    const hub = new SubscriptionHub({ tracker, wsUpstreams, send: (call) => pool.send(call), network: config.name, logger: log });
    return new Network(config.name, config.chainId, pool, hub, tracker, anvil, extra);
  }

  /**
   * An upstream's eth_blockNumber answer as the client gets it: never below the network's height (the
   * tracker's head, or a higher number answered before), so that switching to a node that lags cannot make
   * it go backwards.
   */
  blockNumberAnswer(outcome: RpcOutcome): RpcOutcome {
    const answer = atLeast(outcome, this.tracker.height);
    const n = typeof answer.result === 'string' ? Number(answer.result) : NaN;
    if (Number.isSafeInteger(n)) this.tracker.noteHeight(n);
    return answer;
  }

  /**
   * eth_getBlockByNumber("latest") as the block at the head the gateway has answered (or tracked): then a
   * node that lags is not asked for it, and the block a client gets as latest never goes backwards. With a
   * single upstream there is nothing to switch between: "latest" goes as it is.
   */
  pinLatest(call: UpstreamCall): UpstreamCall {
    if (call.method !== 'eth_getBlockByNumber' || call.params[0] !== 'latest' || this.pool.size < 2) return call;
    const head = this.tracker.height;
    return head === undefined ? call : { method: call.method, params: ['0x' + head.toString(16), ...call.params.slice(1)] };
  }

  /** The network's head: the highest block its upstreams reported. */
  get head(): number | undefined {
    return this.tracker.head?.number ?? this.pool.head;
  }

  /**
   * Whether the network can serve: an upstream is in rotation, as the pool's health checks last found
   * (used by /healthz, which so costs no upstream call).
   */
  get up(): boolean {
    return this.pool.serving;
  }

  async stop(): Promise<void> {
    this.hub.close();
    await this.tracker.close();
    await this.pool.close();
    await Promise.all(this.extra.map((t) => t.close()));
    await this.anvil?.stop();
  }
}
