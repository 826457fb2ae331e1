/**
 * eth_subscribe for WebSocket clients of one network. Clients asking for the same thing (newHeads, the same
 * logs filter, ...) share one upstream subscription; each client sees its own subscription id. The upstream
 * subscription ends when its last client unsubscribes or disconnects, and is made again after the upstream
 * connection comes back.
 */
import { randomBytes } from 'node:crypto';
import type { WsUpstream } from './upstream/ws.js';
import type { RpcOutcome } from './jsonrpc.js';
import { RpcError } from './errors.js';
import type { Logger } from '../logger.js';

/** A client connection as the hub sees it: somewhere to write notification frames. */
export interface SubscriberSink {
  send(frame: string): void;
  /** False once the client has gone (its dropClient may already have run). */
  readonly open: boolean;
}

interface Shared {
  params: unknown[];
  upstreamId: string | undefined;
  /** Settles once the upstream subscription exists (or failed). */
  ready: Promise<RpcOutcome>;
  clients: Map<string, SubscriberSink>;
}

export class SubscriptionHub {
  private readonly shared = new Map<string, Shared>();
  private readonly clientSubs = new Map<string, { key: string; sink: SubscriberSink }>();

  constructor(
    private readonly upstream: WsUpstream | undefined,
    private readonly network: string,
    private readonly logger: Logger,
  ) {
    upstream?.on('reconnected', () => this.resubscribeAll());
  }

  /** Number of live upstream subscriptions (exposed as a metric and checked by tests). */
  get upstreamSubscriptions(): number {
    return [...this.shared.values()].filter((s) => s.upstreamId !== undefined).length;
  }

  subscriptionsOf(sink: SubscriberSink): number {
    let n = 0;
    for (const sub of this.clientSubs.values()) if (sub.sink === sink) n++;
    return n;
  }

  async subscribe(sink: SubscriberSink, params: unknown[]): Promise<RpcOutcome> {
    const upstream = this.upstream;
    if (!upstream) {
      throw new RpcError(400, -32601, `eth_subscribe needs a WebSocket upstream; network ${this.network} has none`);
    }
    const key = JSON.stringify(params);
    let entry = this.shared.get(key);
    if (!entry) {
      const created: Shared = { params, upstreamId: undefined, clients: new Map(), ready: undefined! };
      created.ready = this.open(upstream, created);
      entry = created;
      this.shared.set(key, entry);
      // A failed upstream subscription is not shared with later clients: they try afresh.
      const forget = () => {
        if (this.shared.get(key) === created) this.shared.delete(key);
      };
      created.ready.then((outcome) => outcome.error && forget(), forget);
    }
    const outcome = await entry.ready;
    if (outcome.error) return outcome;
    const clientId = '0x' + randomBytes(16).toString('hex');
    entry.clients.set(clientId, sink);
    this.clientSubs.set(clientId, { key, sink });
    // The client may have left while the upstream was answering: then nobody will ever drop it.
    if (!sink.open) this.remove(clientId, key);
    return { result: clientId };
  }

  /** eth_unsubscribe: true when `sink` owned that subscription. */
  unsubscribe(sink: SubscriberSink, clientId: string): boolean {
    const sub = this.clientSubs.get(clientId);
    if (!sub || sub.sink !== sink) return false;
    this.remove(clientId, sub.key);
    return true;
  }

  /** A client went away: its subscriptions end, and so do upstream ones nobody else uses. */
  dropClient(sink: SubscriberSink): void {
    for (const [clientId, sub] of this.clientSubs) if (sub.sink === sink) this.remove(clientId, sub.key);
  }

  private remove(clientId: string, key: string): void {
    this.clientSubs.delete(clientId);
    const entry = this.shared.get(key);
    if (!entry) return;
    entry.clients.delete(clientId);
    if (entry.clients.size > 0) return;
    this.shared.delete(key);
    // If the upstream subscription is still being made, end it once it exists.
    entry.ready.then(
      () => {
        if (entry.upstreamId) void this.upstream?.unsubscribe(entry.upstreamId);
      },
      () => undefined,
    );
  }

  private async open(upstream: WsUpstream, entry: Shared): Promise<RpcOutcome> {
    const outcome = await upstream.subscribe(entry.params, (result) => this.notify(entry, result));
    if (outcome.error === undefined) entry.upstreamId = outcome.result as string;
    return outcome;
  }

  private notify(entry: Shared, result: unknown): void {
    const payload = JSON.stringify(result);
    for (const [clientId, sink] of entry.clients) {
      sink.send(`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${clientId}","result":${payload}}}`);
    }
  }

  private resubscribeAll(): void {
    for (const entry of this.shared.values()) {
      entry.upstreamId = undefined;
      entry.ready = this.open(this.upstream!, entry).catch((err: Error) => {
        this.logger.warn({ network: this.network, err: err.message }, 'could not subscribe again after reconnect');
        return { error: { code: -32603, message: err.message } };
      });
    }
  }
}
